/**
 * DNS verdicts of a custom domain: what DNS should say of it, what it said, and the one
 * verdict with its fix in the tenant's words. Pure functions over a {@link DnsLookup}: the
 * domains service asks through node:dns (tools/domains-dns.ts) or the local sandbox, and the
 * tests through a real DNS server on loopback.
 */

/** The spec's TTL of the tenant's record, in seconds. */
export const TENANT_RECORD_TTL = 3600;

/** A CAA record: `flags tag "value"`, e.g. `0 issue "amazon.com"`. */
export interface CaaRecord {
  /** The flags octet; its bit 128 is the Issuer Critical Flag (RFC 8659 §4.1). */
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
  /**
   * The A and AAAA records the name holds itself: answer records owned by the name, not by a
   * CNAME's target. Only a lookup that reads whole answers has it (node:dns gives addresses
   * alone); without it a record beside a CNAME is seen only when its address differs.
   */
  ownAddresses?(name: string): Promise<string[]>;
}

/** The certificate authority identities that let ACM (Amazon) issue, as CAA `issue` values. */
export const AMAZON_CAA_DOMAINS = ['amazon.com', 'amazontrust.com', 'awstrust.com', 'amazonaws.com'] as const;

/** What a domain should look like in DNS. */
export interface DnsExpectation {
  readonly domain: string;
  /** The zone's apex (the registrable domain, by the Public Suffix List). */
  readonly zone: string;
  readonly apex: boolean;
  /** The spec's `{platform_cname_target}` of this domain. */
  readonly target: string;
  /**
   * An imported domain's old per-domain target (`<domain>.tenants.<platform domain>`): the
   * tenant's CNAME still names it, and it reaches the edge once the platform makes it a CNAME
   * to the target or to the target's own CNAME (the routing endpoint).
   */
  readonly migratedFrom?: string;
}

/** What DNS answered, all asked at the same moment. */
export interface DnsObservation {
  readonly cname: readonly string[];
  readonly a: readonly string[];
  readonly aaaa: readonly string[];
  readonly targetA: readonly string[];
  readonly targetAaaa: readonly string[];
  /** The A/AAAA records owned by the domain itself, when the lookup can tell ({@link DnsLookup.ownAddresses}). */
  readonly ownAddresses?: readonly string[];
  /** The closest CAA record set (RFC 8659 §3: the name, then its parents up to the TLD); undefined when none. */
  readonly caa?: { readonly owner: string; readonly records: readonly CaaRecord[] };
  /** For an imported domain: the CNAME of its old target, and the target's own CNAME. */
  readonly migration?: {
    readonly oldTargetCname: readonly string[];
    readonly targetCname: readonly string[];
  };
}

/** The one verdict of a verification. */
export type Verdict =
  | {
      readonly kind: 'verified';
      /** `old-target`: an imported domain, through its old target's CNAME to the edge. */
      readonly via: 'cname' | 'old-target' | 'apex-addresses';
      readonly caa?: DnsObservation['caa'];
    }
  | {
      readonly kind: 'conflicting-record';
      readonly records: readonly string[];
      /** The records stand beside a CNAME to the target (which then cannot answer). */
      readonly besideCname?: true;
    }
  | { readonly kind: 'cname-mismatch'; readonly expected: string; readonly found: string }
  /** An imported domain whose old target does not reach the edge yet (the platform moves it). */
  | { readonly kind: 'migration-pending'; readonly oldTarget: string; readonly found?: string }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'caa-blocks'; readonly owner: string; readonly records: readonly string[] }
  | {
      readonly kind: 'apex-mismatch';
      readonly found: readonly string[];
      readonly expected: readonly string[];
    };

/** Asks everything at once, so the apex's and the target's addresses come from the same moment. */
export async function observe(lookup: DnsLookup, expectation: DnsExpectation): Promise<DnsObservation> {
  const { domain, target, migratedFrom } = expectation;
  const [cname, a, aaaa, targetA, targetAaaa, caa, migration] = await Promise.all([
    lookup.cname(domain),
    lookup.a(domain),
    lookup.aaaa(domain),
    lookup.a(target),
    lookup.aaaa(target),
    closestCaa(lookup, expectation),
    migratedFrom === undefined
      ? undefined
      : Promise.all([lookup.cname(migratedFrom), lookup.cname(target)]).then(
          ([oldTargetCname, targetCname]) => ({ oldTargetCname, targetCname }),
        ),
  ]);
  // Only a CNAME's name can have records beside it.
  const ownAddresses =
    cname.length > 0 && !expectation.apex ? await lookup.ownAddresses?.(domain) : undefined;
  return {
    cname,
    a,
    aaaa,
    targetA,
    targetAaaa,
    ...(ownAddresses ? { ownAddresses } : {}),
    caa,
    ...(migration ? { migration } : {}),
  };
}

/**
 * RFC 8659 §3: the relevant record set is the name's, else its parent's, climbing to but not
 * including the root, so a CAA set on a suffix (`co.uk`, a TLD) binds too. A CNAME's target is
 * followed by the resolver, as the RFC asks.
 */
async function closestCaa(lookup: DnsLookup, { domain }: DnsExpectation): Promise<DnsObservation['caa']> {
  const labels = domain.split('.');
  for (let i = 0; i < labels.length; i += 1) {
    const owner = labels.slice(i).join('.');
    const records = await lookup.caa(owner);
    if (records.length > 0) return { owner, records };
  }
  return undefined;
}

const isIPv6 = (address: string) => address.includes(':');
const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');
const sorted = (values: readonly string[]) => [...new Set(values)].sort();
const formatCaa = (record: CaaRecord) => `${record.critical} ${record.tag} "${record.value}"`;

/**
 * The property tags a CA understands: RFC 8659's three, and the contact tags of the CA/Browser
 * Forum's Baseline Requirements (Appendix A). Any other tag with the critical flag forbids issuance.
 */
const KNOWN_CAA_TAGS = new Set(['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone']);
const CAA_ISSUER_CRITICAL = 128;

/**
 * True when the CAA set lets Amazon issue a (non-wildcard) certificate, by RFC 8659: a
 * property with the Issuer Critical Flag and a tag the CA does not know forbids issuance
 * (§4.1); else the `issue` properties decide (tags match case-insensitively), none of them
 * meaning no restriction (§4.2); an `issue` with an empty issuer (`0 issue ";"`) names no CA.
 * `issuewild` binds wildcard certificates only, and the platform requests none.
 */
export function caaAllowsAmazon(records: readonly CaaRecord[]): boolean {
  const unknownCritical = records.some(
    (record) =>
      (record.critical & CAA_ISSUER_CRITICAL) !== 0 && !KNOWN_CAA_TAGS.has(record.tag.toLowerCase()),
  );
  if (unknownCritical) return false;
  const issue = records.filter((record) => record.tag.toLowerCase() === 'issue');
  if (issue.length === 0) return true;
  return issue.some((record) => {
    const issuer = normalize(record.value.split(';')[0]?.trim() ?? '');
    return (AMAZON_CAA_DOMAINS as readonly string[]).includes(issuer);
  });
}

/**
 * The A/AAAA records that stand beside a CNAME (RFC 1034 §3.6.2: a CNAME's name has no other
 * data), whatever their addresses. Seen exactly when the lookup reports the records the name
 * owns; else by address: through the CNAME a name answers its target's addresses, so an address
 * family in which it answers none of the target's (an AAAA where the target has none, an A of
 * its own) is another record answering instead.
 */
function addressesBesideCname(domain: string, seen: DnsObservation): string[] {
  const record = (address: string) => `${domain} ${isIPv6(address) ? 'AAAA' : 'A'} ${address}`;
  if (seen.ownAddresses) return sorted(seen.ownAddresses).map(record);
  const foreign = (own: readonly string[], target: readonly string[]) =>
    own.length > 0 && !own.some((address) => target.includes(address)) ? own : [];
  return [...foreign(seen.a, seen.targetA), ...foreign(seen.aaaa, seen.targetAaaa)].map(record);
}

/** True when an old target is a CNAME to the target, or to what the target is a CNAME of (the routing endpoint). */
function oldTargetReachesEdge(target: string, seen: DnsObservation): boolean {
  const next = seen.migration?.oldTargetCname[0];
  if (next === undefined) return false;
  const reach = [target, ...(seen.migration?.targetCname ?? [])].map(normalize);
  return reach.includes(normalize(next));
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
  const conflicting = [
    ...seen.a.map((address) => `${expectation.domain} A ${address}`),
    ...seen.aaaa.map((address) => `${expectation.domain} AAAA ${address}`),
  ];
  const cname = seen.cname[0];
  if (cname !== undefined) {
    const { migratedFrom } = expectation;
    const viaOldTarget = migratedFrom !== undefined && normalize(cname) === normalize(migratedFrom);
    if (normalize(cname) !== normalize(expectation.target) && !viaOldTarget) {
      return { kind: 'cname-mismatch', expected: expectation.target, found: normalize(cname) };
    }
    if (viaOldTarget && !oldTargetReachesEdge(expectation.target, seen)) {
      const found = seen.migration?.oldTargetCname[0];
      return {
        kind: 'migration-pending',
        oldTarget: migratedFrom,
        ...(found ? { found: normalize(found) } : {}),
      };
    }
    const beside = addressesBesideCname(expectation.domain, seen);
    if (beside.length > 0) return { kind: 'conflicting-record', records: beside, besideCname: true };
    return caaVerdict() ?? { kind: 'verified', via: viaOldTarget ? 'old-target' : 'cname', caa: seen.caa };
  }
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
        summary: {
          cname: `Verified: ${domain} is a CNAME of ${target}.`,
          'old-target': `Verified: ${domain} reaches ${target} through its old target ${expectation.migratedFrom}.`,
          'apex-addresses': `Verified: ${domain} answers with the same addresses as ${target}.`,
        }[verdict.via],
        fix: 'Nothing to do.',
      };
    case 'conflicting-record':
      return {
        summary: `Not verified: a conflicting record exists for ${domain} and blocks the CNAME: ${verdict.records.join(', ')}.`,
        fix: `Delete ${verdict.records.length > 1 ? 'these records' : 'this record'} at your DNS provider, then ${verdict.besideCname ? 'keep' : 'add'} the CNAME ${domain} → ${target} (TTL ${TENANT_RECORD_TTL}).`,
      };
    case 'cname-mismatch':
      return {
        summary: `Not verified: the CNAME of ${domain} points elsewhere: expected ${verdict.expected}, found ${verdict.found}.`,
        fix: `Change the CNAME value of ${domain} to ${verdict.expected} (TTL ${TENANT_RECORD_TTL}).`,
      };
    case 'migration-pending':
      return {
        summary: `Not verified yet: ${domain} points at its old target ${verdict.oldTarget}, which ${verdict.found ? `is a CNAME of ${verdict.found}` : 'is not a CNAME'} and does not reach ${target} yet.`,
        fix: `Nothing to do for the tenant: the platform makes ${verdict.oldTarget} a CNAME to the edge once the certificate is issued (npm run domains -- status --all prints the change).`,
      };
    case 'not-found':
      return {
        summary: `Not verified yet: no ${recordType} record found for ${domain}.`,
        fix: `Add the ${recordType} record ${domain} → ${target} (TTL ${TENANT_RECORD_TTL}). If you added it already, wait: DNS changes can take up to 48 hours to propagate.`,
      };
    case 'caa-blocks':
      return {
        summary: `Not verified: CAA records on ${verdict.owner} forbid the certificate authority: ${verdict.records.join(', ')}.`,
        fix: `Allow Amazon, the authority behind the certificate: add the CAA record ${verdict.owner} CAA 0 issue "amazon.com" (any of ${AMAZON_CAA_DOMAINS.join(', ')} will do).`,
      };
    case 'apex-mismatch':
      return {
        summary: `Not verified: ${domain} answers ${verdict.found.join(', ')}, but ${target} answers ${verdict.expected.join(', ') || 'nothing'} (asked at the same moment).`,
        fix: `Make the apex an ALIAS/ANAME of ${target} (TTL ${TENANT_RECORD_TTL}) and delete its other A/AAAA records; if your provider has no ALIAS/ANAME, use a subdomain (e.g. www) as the primary.`,
      };
  }
}
