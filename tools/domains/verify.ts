import type { ConsoleClient } from '../../lambda/api/console-client';
import type { ConsoleAnswer } from '../../lambda/api/console-routes';
import { explainVerdict, observe, resolverLookup, verdictOf } from '../domains-dns';
import { reason } from '../failures';
import type { DomainsCommandSpec } from './options';
import { tenantCommand } from './tenant-command';
import { viewLines } from './views';

/** What a DNS server the tool asked itself sees (verify --resolver). */
interface ResolverCheck {
  readonly resolver: string;
  readonly verdict: string;
  readonly summary: string;
}

interface VerifyFacts {
  readonly verification: ConsoleAnswer<'verifyDomain'>;
  readonly own?: ResolverCheck;
}

const VERIFY_SUMMARY =
  'Check the DNS record (the service prints one verdict and its fix), then the certificate.';

function declaration(name: 'verify' | 'reverify', summary: string): DomainsCommandSpec {
  return { name, operands: ['domain'], options: ['resolver', 'json'], summary };
}

/** verify --resolver: the tool's own look through that server, at the record the service asks for. */
async function resolverCheck(
  service: ConsoleClient,
  name: string,
  resolver: string,
): Promise<ResolverCheck | undefined> {
  const { domains } = await service.call('listDomains');
  const wanted = name.trim().toLowerCase().replace(/\.$/, '');
  const view = domains.find((candidate) => candidate.name === wanted);
  if (!view) return undefined;
  const expectation = {
    domain: view.name,
    zone: view.record.zone,
    apex: view.record.type !== 'CNAME',
    target: view.record.value,
  };
  try {
    const verdict = verdictOf(expectation, await observe(resolverLookup(resolver), expectation));
    return { resolver, verdict: verdict.kind, summary: explainVerdict(expectation, verdict).summary };
  } catch (error) {
    return { resolver, verdict: 'unreachable', summary: `no answer (${reason(error)})` };
  }
}

function verifyCommand(name: 'verify' | 'reverify', summary: string) {
  return tenantCommand({
    declaration: declaration(name, summary),
    async gather(service, { operands: [domain = ''], values }): Promise<VerifyFacts> {
      const own =
        values.resolver === undefined ? undefined : await resolverCheck(service, domain, values.resolver);
      const verification = await service.call('verifyDomain', { path: { name: domain } });
      return { verification, ...(own ? { own } : {}) };
    },
    diagnose: ({ verification, own }) => {
      const view = verification.domain;
      return {
        exitCode: verification.verified ? 0 : 1,
        report: {
          domain: view.name,
          role: view.role,
          verified: verification.verified,
          verdict: verification.verdict,
          summary: verification.summary,
          fix: verification.fix,
          certificate: view.certificate,
          state: view.state,
          ...(view.reason ? { reason: view.reason } : {}),
          since: view.since,
          record: view.record,
          troubleshooting: view.troubleshooting ?? [],
          ...(own ? { resolverCheck: own } : {}),
        },
      };
    },
    render: ({ resolverCheck: own, summary, verified, fix }, { verification: { domain: view } }) => [
      `${name === 'reverify' ? 'Re-verifying' : 'Verifying'} ${view.name} (${view.role}).`,
      ...(own ? [`${own.resolver} sees: ${own.summary}`] : []),
      summary,
      ...(verified ? [] : [`Fix: ${fix}`]),
      ...viewLines(view),
    ],
  });
}

/** `verify <domain>`: the service's DNS verdict and its fix, then the certificate. */
export const VERIFY = verifyCommand('verify', VERIFY_SUMMARY);

/** `reverify <domain>`: the same, after a fix; a certificate that timed out is requested again. */
export const REVERIFY = verifyCommand(
  'reverify',
  `${VERIFY_SUMMARY}\nThe same as verify, after a fix; a certificate that timed out is requested again.`,
);
