import { type CustomDomain, DNS_PROPAGATION_MS, isApexDomain } from './custom-domain';
import { afterCertificate } from './custom-domain-certificates';
import { type CustomDomainsOptions, edgeCall, now, save } from './custom-domains-ports';
import { takeName } from './domain-claims';
import { judgeOwnership } from './domain-ownership';
import { DomainError } from '../errors';
import { advanceImport } from './imported-domains';
import { routeOf } from './primary-claim';

/**
 * A verification: the domain's DNS judged for its project (domain-ownership.ts), the edge's own
 * check, a claim whose proof holds taking the name (domain-claims.ts), and the state that
 * follows: a tenant and a certificate once verified, pending-dns or failed otherwise.
 */

/** What a verification did: the record after it, and the verdict in the tenant's words. */
export interface VerificationOutcome {
  readonly after: CustomDomain;
  readonly verified: boolean;
  readonly verdict: string;
  readonly summary: string;
  readonly fix: string;
}

/**
 * Checks the domain's DNS (and, where the edge has one, the edge's own check) against the
 * project's target and token. Verified, a claim takes the name, a domain without a tenant gets
 * one and its certificate is requested (certificate-pending); a certificate that timed out or
 * failed is requested again. Not verified, it stays pending-dns within 48 hours of adding when
 * nothing is there yet, else fails with the verdict's reason.
 */
export async function verifyDomain(
  options: CustomDomainsOptions,
  record: CustomDomain,
  proofs: { readonly target: string; readonly token: string },
): Promise<VerificationOutcome> {
  const { dns, edge, target: sharedTarget } = options;
  let domain = record;
  let judged;
  try {
    judged = await judgeOwnership(dns, { domain, sharedTarget, ...proofs });
  } catch (error) {
    throw new DomainError('dns_unavailable', `DNS could not be asked about ${domain.name}`, {
      cause: error,
    });
  }
  let { summary, fix } = judged;
  let kind = judged.kind;
  if (kind === 'verified') {
    const check = await edgeCall(() => edge.checkDns(domain.name));
    if (check && !check.valid) {
      kind = 'edge-dns-invalid';
      summary = `Not verified: the edge does not see ${domain.name} pointing at ${proofs.target}${check.reason ? ` (${check.reason})` : ''}.`;
      fix = `Keep the ${isApexDomain(domain.name) ? 'ALIAS/ANAME' : 'CNAME'} ${domain.name} → ${proofs.target} as the name's only record, wait for DNS to propagate, then re-verify.`;
    }
  }
  if (domain.claim) {
    const owner = await options.store.get(domain.name);
    if (kind === 'verified') {
      domain = await takeName(options, domain, owner);
    } else if (owner) {
      // Who owns it is never said: only that this project's proof is not there.
      summary = `${domain.name} serves another project now, and its DNS does not show this project's proof. ${summary}`;
    }
  }
  const proof = judged.proof === 'cname' || judged.proof === 'txt' ? { proof: judged.proof } : {};
  const verified = kind === 'verified';
  let after: CustomDomain;
  if (domain.migratedFrom && !domain.attached) {
    // Still served where it was (the old target): its tenant waits for its own certificate,
    // whatever the DNS says; one that failed or timed out is requested again.
    after = (await advanceImport(options, domain, { renew: true })).domain;
  } else if (kind === 'migration-pending') {
    after = domain;
  } else if (!verified) {
    const waiting =
      kind === 'not-found' &&
      !domain.servedAt &&
      Date.parse(now(options)) - Date.parse(domain.addedAt) < DNS_PROPAGATION_MS;
    after = waiting
      ? await save(options, domain, { state: 'pending-dns' })
      : await save(options, domain, {
          state: 'failed',
          reason: kind === 'not-found' ? `${summary} ${fix}` : summary,
        });
  } else if (!domain.attached) {
    // At the edge, a tenant the name had already (another project's) is rerouted here.
    const attaching = domain;
    await edgeCall(async () => edge.attach(attaching.name, await routeOf(options, attaching)));
    after = await save(options, domain, {
      state: 'certificate-pending',
      attached: true,
      certificate: 'pending',
      ...proof,
    });
  } else {
    const certificate = await edgeCall(() => edge.certificate(domain.name));
    if (certificate.state === 'issued' || certificate.state === 'pending') {
      after = await save(options, domain, {
        ...afterCertificate(options, domain, certificate),
        ...proof,
      });
    } else {
      // Timed out, failed or gone: a fresh request, and the 30 minutes start again.
      await edgeCall(async () =>
        certificate.state === 'none'
          ? edge.attach(domain.name, await routeOf(options, domain))
          : edge.renewCertificate(domain.name),
      );
      after = await save(
        options,
        domain,
        { state: 'certificate-pending', certificate: 'pending', ...proof },
        { restart: true },
      );
    }
  }
  return { after, verified, verdict: kind, summary, fix };
}
