import { type CustomDomain, DNS_PROPAGATION_MS, isApexDomain } from './custom-domain';
import { type CustomDomainsOptions, edgeCall, now, saveDecision } from './custom-domains-ports';
import { takeName } from './domain-claims';
import { judgeOwnership } from './domain-ownership';
import type { EdgeCertificate } from './edge-tenants';
import { DomainError } from '../errors';
import { advanceImport } from './imported-domains';
import { decide, type LifecycleFacts } from './lifecycle';
import { routeOf } from './primary-claim';

/**
 * A verification: the domain's DNS judged for its project (domain-ownership.ts), the edge's own
 * check, and the certificate where the domain has a tenant: the facts the lifecycle decides from
 * (lifecycle.ts, the event `verify`). This module gathers them and applies the decision's effects.
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
 * project's target and token, and moves the domain on as the lifecycle decides: a claim whose
 * proof holds takes the name, a domain without a tenant gets one and its certificate is requested
 * (certificate-pending); a certificate that timed out or failed is requested again. Not verified,
 * it stays pending-dns within 48 hours of adding when nothing is there yet, else fails.
 */
export async function verifyDomain(
  options: CustomDomainsOptions,
  record: CustomDomain,
  proofs: { readonly target: string; readonly token: string },
): Promise<VerificationOutcome> {
  const { dns, edge, target: sharedTarget } = options;
  let judged;
  try {
    judged = await judgeOwnership(dns, { domain: record, sharedTarget, ...proofs });
  } catch (error) {
    throw new DomainError('dns_unavailable', `DNS could not be asked about ${record.name}`, {
      cause: error,
    });
  }
  let { summary, fix } = judged;
  let kind = judged.kind;
  if (kind === 'verified') {
    const check = await edgeCall(() => edge.checkDns(record.name));
    if (check && !check.valid) {
      kind = 'edge-dns-invalid';
      summary = `Not verified: the edge does not see ${record.name} pointing at ${proofs.target}${check.reason ? ` (${check.reason})` : ''}.`;
      fix = `Keep the ${isApexDomain(record.name) ? 'ALIAS/ANAME' : 'CNAME'} ${record.name} → ${proofs.target} as the name's only record, wait for DNS to propagate, then re-verify.`;
    }
  }
  const owner = record.claim ? await options.store.get(record.name) : undefined;
  if (record.claim && kind !== 'verified' && owner) {
    // Who owns it is never said: only that this project's proof is not there.
    summary = `${record.name} serves another project now, and its DNS does not show this project's proof. ${summary}`;
  }
  const facts: LifecycleFacts = {
    now: now(options),
    dns: {
      kind,
      ...(judged.proof ? { proof: judged.proof } : {}),
      failure: kind === 'not-found' ? `${summary} ${fix}` : summary,
    },
    withinPropagation: options.clock() - Date.parse(record.addedAt) < DNS_PROPAGATION_MS,
  };
  const after = await moveOn(options, record, owner, facts);
  return { after, verified: kind === 'verified', verdict: kind, summary, fix };
}

/** Decides `verify` for the record, gathers the certificate where the decision needs it, and applies the effects. */
async function moveOn(
  options: CustomDomainsOptions,
  record: CustomDomain,
  owner: CustomDomain | undefined,
  gathered: LifecycleFacts,
): Promise<CustomDomain> {
  const { edge } = options;
  const needsCertificate =
    record.attached && gathered.dns?.kind === 'verified' && !(record.migratedFrom && !record.attached);
  const certificate: EdgeCertificate | undefined = needsCertificate
    ? await edgeCall(() => edge.certificate(record.name))
    : undefined;
  const facts = certificate ? { ...gathered, certificate } : gathered;
  const decision = decide(record, 'verify', facts);
  let domain = record;
  for (const effect of decision.effects) {
    switch (effect) {
      case 'take-name':
        domain = await takeName(options, domain, owner, decision);
        break;
      case 'verify-again':
        return moveOn(options, domain, undefined, gathered);
      case 'advance-import':
        // Still served where it was (the old target): its tenant waits for its own certificate,
        // whatever the DNS says; one that failed or timed out is requested again.
        return (await advanceImport(options, domain, { renew: true })).domain;
      case 'attach': {
        // At the edge, a tenant the name had already (another project's) is rerouted here.
        const route = await routeOf(options, domain);
        await edgeCall(() => edge.attach(domain.name, route));
        break;
      }
      case 'renew-certificate':
        await edgeCall(() => edge.renewCertificate(domain.name));
        break;
      default:
        break;
    }
  }
  return saveDecision(options, domain, decision);
}
