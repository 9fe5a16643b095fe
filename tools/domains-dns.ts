import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { UsageError } from './failures';

/** A CAA record: `flags tag "value"`, e.g. `0 issue "amazon.com"`. */
export interface CaaRecord {
  readonly critical: number;
  readonly tag: string;
  readonly value: string;
}

/** The DNS questions the verdicts need; an empty answer means the name has no such record. */
export interface DnsLookup {
  cname(name: string): Promise<string[]>;
  a(name: string): Promise<string[]>;
  aaaa(name: string): Promise<string[]>;
  caa(name: string): Promise<CaaRecord[]>;
}

/** Answers that mean "no such record" rather than "the lookup failed". */
const NO_ANSWER = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

/**
 * Checks a DNS server address as node:dns's Resolver takes it: an IP address with an
 * optional port (`127.0.0.1`, `127.0.0.1:5353`, `::1`, `[::1]:5353`). Host names are
 * refused: the resolver cannot look up its own address.
 */
export function parseResolverAddress(value: string): string {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(value) ?? /^([^:]+)(?::(\d+))?$/.exec(value);
  const [host, port] = match ? [match[1] ?? '', match[2]] : [value, undefined];
  const validPort = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
  if (isIP(host) === 0 || !validPort) {
    throw new UsageError(
      `--resolver ${JSON.stringify(value)} is not a DNS server address: use an IP address with an optional port, e.g. 127.0.0.1:5353 or [::1]:5353.`,
    );
  }
  return value;
}

/**
 * A {@link DnsLookup} on node:dns's Resolver: the system's resolvers, or `server`
 * (`host` or `host:port`, e.g. `127.0.0.1:5353`). A fresh resolver per lookup object,
 * so no answer is cached between two runs.
 */
export function resolverLookup(server?: string, timeoutMs = 2_000): DnsLookup {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (server) resolver.setServers([parseResolverAddress(server)]);
  const ask = async <T>(name: string, type: string, query: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await query();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (NO_ANSWER.has(code)) return [];
      throw new Error(
        `DNS lookup of ${type} ${name} failed (${code || String(error)}) at ${server ?? 'the system resolver'}: check the resolver address and the network.`,
        { cause: error },
      );
    }
  };
  return {
    cname: (name) => ask(name, 'CNAME', () => resolver.resolveCname(name)),
    a: (name) => ask(name, 'A', () => resolver.resolve4(name)),
    aaaa: (name) => ask(name, 'AAAA', () => resolver.resolve6(name)),
    caa: (name) =>
      ask(name, 'CAA', async () =>
        (await resolver.resolveCaa(name)).flatMap((record) => {
          const tag = (['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone'] as const).find(
            (t) => t in record,
          );
          return tag ? [{ critical: record.critical, tag, value: String(record[tag]) }] : [];
        }),
      ),
  };
}

/** The certificate authority identities that let ACM (Amazon) issue, as CAA `issue` values. */
export const AMAZON_CAA_DOMAINS = ['amazon.com', 'amazontrust.com', 'awstrust.com', 'amazonaws.com'] as const;

/** What a domain should look like in DNS. */
export interface DnsExpectation {
  readonly domain: string;
  /** The zone's apex: the CAA search stops there. */
  readonly zone: string;
  readonly apex: boolean;
  /** The spec's `{platform_cname_target}` of this domain. */
  readonly target: string;
}

/** What DNS answered, all asked at the same moment. */
export interface DnsObservation {
  readonly cname: readonly string[];
  readonly a: readonly string[];
  readonly aaaa: readonly string[];
  readonly targetA: readonly string[];
  readonly targetAaaa: readonly string[];
  /** The closest CAA record set (RFC 8659: the name, then its parents up to the zone); undefined when none. */
  readonly caa?: { readonly owner: string; readonly records: readonly CaaRecord[] };
}

/** The one verdict of a verification. */
export type Verdict =
  | {
      readonly kind: 'verified';
      readonly via: 'cname' | 'apex-addresses';
      readonly caa?: DnsObservation['caa'];
    }
  | { readonly kind: 'conflicting-record'; readonly records: readonly string[] }
  | { readonly kind: 'cname-mismatch'; readonly expected: string; readonly found: string }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'caa-blocks'; readonly owner: string; readonly records: readonly string[] }
  | {
      readonly kind: 'apex-mismatch';
      readonly found: readonly string[];
      readonly expected: readonly string[];
    };

/** Asks everything at once, so the apex's and the target's addresses come from the same moment. */
export async function observe(lookup: DnsLookup, expectation: DnsExpectation): Promise<DnsObservation> {
  const { domain, target } = expectation;
  const [cname, a, aaaa, targetA, targetAaaa, caa] = await Promise.all([
    lookup.cname(domain),
    lookup.a(domain),
    lookup.aaaa(domain),
    lookup.a(target),
    lookup.aaaa(target),
    closestCaa(lookup, expectation),
  ]);
  return { cname, a, aaaa, targetA, targetAaaa, caa };
}

async function closestCaa(
  lookup: DnsLookup,
  { domain, zone }: DnsExpectation,
): Promise<DnsObservation['caa']> {
  const labels = domain.split('.');
  const zoneDepth = zone.split('.').length;
  for (let i = 0; labels.length - i >= zoneDepth; i += 1) {
    const owner = labels.slice(i).join('.');
    const records = await lookup.caa(owner);
    if (records.length > 0) return { owner, records };
  }
  return undefined;
}

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');
const sorted = (values: readonly string[]) => [...new Set(values)].sort();
const formatCaa = (record: CaaRecord) => `${record.critical} ${record.tag} "${record.value}"`;

/** True when the CAA set lets Amazon issue a (non-wildcard) certificate. */
export function caaAllowsAmazon(records: readonly CaaRecord[]): boolean {
  const issue = records.filter((record) => record.tag === 'issue');
  // No `issue` property: the set does not restrict non-wildcard certificates (RFC 8659 §4.2).
  if (issue.length === 0) return true;
  return issue.some((record) => {
    const issuer = normalize(record.value.split(';')[0]?.trim() ?? '');
    return (AMAZON_CAA_DOMAINS as readonly string[]).includes(issuer);
  });
}

/** The verdict, from the answers alone (no I/O). */
export function verdictOf(expectation: DnsExpectation, seen: DnsObservation): Verdict {
  const caaVerdict = (): Verdict | undefined =>
    seen.caa && !caaAllowsAmazon(seen.caa.records)
      ? { kind: 'caa-blocks', owner: seen.caa.owner, records: seen.caa.records.map(formatCaa) }
      : undefined;

  if (expectation.apex) {
    const found = sorted([...seen.a, ...seen.aaaa]);
    if (found.length === 0) return { kind: 'not-found' };
    const expected = sorted([...seen.targetA, ...seen.targetAaaa]);
    const same = found.length === expected.length && found.every((address, i) => address === expected[i]);
    if (!same) return { kind: 'apex-mismatch', found, expected };
    return caaVerdict() ?? { kind: 'verified', via: 'apex-addresses', caa: seen.caa };
  }
  const cname = seen.cname[0];
  if (cname !== undefined) {
    if (normalize(cname) !== normalize(expectation.target)) {
      return { kind: 'cname-mismatch', expected: expectation.target, found: normalize(cname) };
    }
    return caaVerdict() ?? { kind: 'verified', via: 'cname', caa: seen.caa };
  }
  const conflicting = [
    ...seen.a.map((address) => `${expectation.domain} A ${address}`),
    ...seen.aaaa.map((address) => `${expectation.domain} AAAA ${address}`),
  ];
  if (conflicting.length > 0) return { kind: 'conflicting-record', records: conflicting };
  return { kind: 'not-found' };
}

/** What the verdict means and what to do, in words for the tenant. */
export function explainVerdict(
  expectation: DnsExpectation,
  verdict: Verdict,
): { summary: string; fix: string } {
  const { domain, target } = expectation;
  const recordType = expectation.apex ? 'ALIAS/ANAME' : 'CNAME';
  switch (verdict.kind) {
    case 'verified':
      return {
        summary:
          verdict.via === 'cname'
            ? `Verified: ${domain} is a CNAME of ${target}.`
            : `Verified: ${domain} answers with the same addresses as ${target}.`,
        fix: 'Nothing to do.',
      };
    case 'conflicting-record':
      return {
        summary: `Not verified: a conflicting record exists for ${domain} and blocks the CNAME: ${verdict.records.join(', ')}.`,
        fix: `Delete ${verdict.records.length > 1 ? 'these records' : 'this record'} at your DNS provider, then add the CNAME ${domain} → ${target} (TTL 3600).`,
      };
    case 'cname-mismatch':
      return {
        summary: `Not verified: the CNAME of ${domain} points elsewhere: expected ${verdict.expected}, found ${verdict.found}.`,
        fix: `Change the CNAME value of ${domain} to ${verdict.expected} (TTL 3600).`,
      };
    case 'not-found':
      return {
        summary: `Not verified yet: no ${recordType} record found for ${domain}.`,
        fix: `Add the ${recordType} record ${domain} → ${target} (TTL 3600). If you added it already, wait: DNS changes can take up to 48 hours to propagate.`,
      };
    case 'caa-blocks':
      return {
        summary: `Not verified: CAA records on ${verdict.owner} forbid the certificate authority: ${verdict.records.join(', ')}.`,
        fix: `Allow Amazon, the authority behind the certificate: add the CAA record ${verdict.owner} CAA 0 issue "amazon.com" (any of ${AMAZON_CAA_DOMAINS.join(', ')} will do).`,
      };
    case 'apex-mismatch':
      return {
        summary: `Not verified: ${domain} answers ${verdict.found.join(', ')}, but ${target} answers ${verdict.expected.join(', ') || 'nothing'} (asked at the same moment).`,
        fix: `Make the apex an ALIAS/ANAME of ${target} (TTL 3600) and delete its other A/AAAA records; if your provider has no ALIAS/ANAME, use a subdomain (e.g. www) as the primary.`,
      };
  }
}
