import {
  type DnsExpectation,
  type DnsLookup,
  explainVerdict,
  observe,
  TENANT_RECORD_TTL,
  verdictOf,
} from './dns-verdict';
import type { CustomDomain, OwnershipDnsRecord } from './custom-domain-record';
import { isApexDomain, registrableDomain } from './custom-domain';
import { ownershipRecordName } from './project-target';

/**
 * Whose a name is: the DNS proof that a domain is a given project's. A CNAME proves it when its
 * first value is the project's own target; where there can be no CNAME (an apex, or a provider
 * that flattens CNAMEs into addresses), the TXT record `_animal-store.<domain>` holding the
 * project's ownership token does. The DNS rules themselves (conflicts, CAA, addresses) are
 * dns-verdict.ts's; this module only decides which target they are judged against and whether
 * the project's proof is there.
 */

/** The TXT question the ownership proof needs beside {@link DnsLookup}. */
export interface TxtLookup {
  /** The name's TXT records, each one's strings joined; empty when it has none. */
  txt(name: string): Promise<string[]>;
}

/** How the name was shown to be the project's (stored as the record's `proof` for the first two). */
export type Proof = 'cname' | 'txt' | 'shared-target' | 'old-target';

/** What a verification judges a domain against. */
export interface OwnershipQuestion {
  readonly domain: CustomDomain;
  /** The project's own target, `<target id>.domains.<platform domain>`. */
  readonly target: string;
  /** The shared target, `domains.<platform domain>`, accepted only for a domain verified before per-project targets. */
  readonly sharedTarget: string;
  /** The project's ownership token (the TXT record's value). */
  readonly token: string;
}

/** The outcome: the verdict's kind and words, and the proof when verified. */
export interface Judgement {
  readonly kind: string;
  readonly summary: string;
  readonly fix: string;
  readonly proof?: Proof;
}

const normalize = (name: string | undefined) => (name ?? '').toLowerCase().replace(/\.$/, '');

/**
 * True for a domain verified before per-project targets (attached or served, with no proof
 * stored): its CNAME to the shared target is accepted for it alone, until it verifies with a
 * proof of its own.
 */
export function verifiedBeforeTargets(domain: CustomDomain): boolean {
  return !domain.claim && domain.proof === undefined && (domain.attached || domain.servedAt !== undefined);
}

/** The TXT record of the proof, as the dashboard shows it beside the ALIAS/ANAME. */
export function ownershipDnsRecord(domain: string, token: string): OwnershipDnsRecord {
  const zone = registrableDomain(domain);
  const owner = ownershipRecordName(domain);
  return {
    name: owner.slice(0, -(zone.length + 1)),
    zone,
    type: 'TXT',
    value: token,
    ttl: TENANT_RECORD_TTL,
  };
}

function txtWords(domain: string, token: string): string {
  return `the TXT record ${ownershipRecordName(domain)} with the value ${token} (TTL ${TENANT_RECORD_TTL})`;
}

/**
 * Judges the domain's DNS for the project: the DNS verdict against the project's own target,
 * and the project's proof. Asks DNS once (the TXT beside the other questions).
 */
export async function judgeOwnership(
  dns: DnsLookup & TxtLookup,
  { domain, target, sharedTarget, token }: OwnershipQuestion,
): Promise<Judgement> {
  const apex = isApexDomain(domain.name);
  const base: DnsExpectation = {
    domain: domain.name,
    zone: registrableDomain(domain.name),
    apex,
    target,
    ...(domain.migratedFrom ? { migratedFrom: domain.migratedFrom } : {}),
  };
  const [firstSeen, texts] = await Promise.all([
    observe(dns, base),
    dns.txt(ownershipRecordName(domain.name)),
  ]);
  const txtHolds = texts.some((text) => text.trim() === token);
  let expectation = base;
  let seen = firstSeen;
  const cname = normalize(seen.cname[0]);
  const viaOldTarget = domain.migratedFrom !== undefined && cname === normalize(domain.migratedFrom);
  // The platform moves an imported domain's old target to the shared target (or its endpoint).
  if ((cname === normalize(sharedTarget) && verifiedBeforeTargets(domain)) || viaOldTarget) {
    expectation = { ...base, target: sharedTarget };
    seen = await observe(dns, expectation);
  } else if (!apex && seen.cname.length === 0 && txtHolds && seen.a.length + seen.aaaa.length > 0) {
    // A flattened CNAME answers addresses only: with the TXT proof, judged as an apex is.
    expectation = { ...base, apex: true };
  }
  const verdict = verdictOf(expectation, seen);
  const words = explainVerdict(expectation, verdict);
  if (verdict.kind !== 'verified') {
    if (!expectation.apex || txtHolds) return { kind: verdict.kind, ...words };
    return {
      kind: verdict.kind,
      summary: words.summary,
      fix: `${words.fix} Beside it, add ${txtWords(domain.name, token)}: addresses cannot say which project a name is for, this record does.`,
    };
  }
  if (verdict.via === 'old-target') return { kind: 'verified', ...words, proof: 'old-target' };
  if (verdict.via === 'cname') {
    return { kind: 'verified', ...words, proof: expectation.target === target ? 'cname' : 'shared-target' };
  }
  if (txtHolds) {
    return {
      kind: 'verified',
      summary: `${words.summary} Its TXT record proves it is this project's.`,
      fix: words.fix,
      proof: 'txt',
    };
  }
  return {
    kind: 'ownership-unproven',
    summary: `Not verified: ${domain.name} answers with the edge's addresses, but addresses do not say which project it is for, and ${ownershipRecordName(domain.name)} holds no TXT record with this project's token.`,
    fix: `Add ${txtWords(domain.name, token)} beside the ${apex ? 'ALIAS/ANAME' : 'record'}, wait for DNS to propagate, then verify again.`,
  };
}
