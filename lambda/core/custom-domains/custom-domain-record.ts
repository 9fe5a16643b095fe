import type { EdgeCertificateState } from './edge-tenants';

/**
 * The value of a removal's confirmation: the caller knows traffic to the domain stops. Here,
 * with no dependency, so that the console page shares it.
 */
export const REMOVE_CONFIRMATION = 'traffic-stops';

/** How long an unverified claim (or a name lost to another project) stays before it is released. */
export const CLAIM_WINDOW_MS = 7 * 24 * 60 * 60_000;

/** A custom domain's record: its roles and states, apart from the rules on names (and their public-suffix list). */

/** `primary`: the project's main domain, redirects point at it; `additional`: serves too; `redirect`: 301 to the primary. */
export const DOMAIN_ROLES = ['primary', 'additional', 'redirect'] as const;
export type DomainRole = (typeof DOMAIN_ROLES)[number];

/**
 * pending-dns → verified → certificate-pending → active; `redirect` is a redirect domain that
 * is serving its 301s (its certificate issued); `failed` carries its reason. `verified` is
 * passing: a verified domain gets its tenant at once and is certificate-pending in the same step.
 */
export const DOMAIN_STATES = [
  'pending-dns',
  'verified',
  'certificate-pending',
  'active',
  'redirect',
  'failed',
] as const;
export type DomainState = (typeof DOMAIN_STATES)[number];

/** A custom domain as stored: one per name, whichever project has it. */
export interface CustomDomain {
  /** Lower-case ASCII (an IDN in its `xn--` form), no trailing dot: the key. */
  readonly name: string;
  readonly project: string;
  readonly role: DomainRole;
  readonly state: DomainState;
  /** Why it failed (state `failed`). */
  readonly reason?: string;
  /** When it entered `state` (ISO 8601). */
  readonly since: string;
  /** When the project added it (ISO 8601): the 48 hours of DNS propagation count from here. */
  readonly addedAt: string;
  /** Whether it has a tenant at the edge (created once its DNS verified). */
  readonly attached: boolean;
  /** The certificate's last known state at the edge. */
  readonly certificate: EdgeCertificateState;
  /**
   * When it first served traffic: first active, or serving 301s (ISO 8601). The service
   * cannot count visitors, so "has served traffic" means "has been able to".
   */
  readonly servedAt?: string;
  /**
   * For a domain imported from the old configuration: its old per-domain target
   * (`<domain>.tenants.<platform domain>`), which becomes a CNAME to the edge once the
   * certificate is issued (`npm run domains -- status --all` prints the change).
   */
  readonly migratedFrom?: string;
  /**
   * An imported domain's certificate of its own (ACM in us-east-1, DNS-validated): its tenant is
   * created with it once it is issued, before the old target moves to the edge.
   */
  readonly certificateArn?: string;
  /**
   * Stored as the project's claim (keyed by name and project): the project asks for the name but
   * does not own it (not verified yet, or lost to a project whose DNS proof held later). Absent
   * on the owner's record, the one item per name the authorizer reads.
   */
  readonly claim?: true;
  /**
   * How the owner proved the name is its: a CNAME to the project's target, or the TXT
   * `_animal-store.<domain>` with its ownership token. Absent on a domain verified before
   * per-project targets: its CNAME to the shared target is accepted for it alone until it
   * verifies with a proof.
   */
  readonly proof?: 'cname' | 'txt';
  /** When another project's proof took the name from this one (ISO 8601): its release window counts from here. */
  readonly lostAt?: string;
  /** Bumped by every write: a write based on an older read is refused. */
  readonly version: number;
}

/** The state a domain serving with an issued certificate is in: its role decides. */
export function servingState(role: DomainRole): 'active' | 'redirect' {
  return role === 'redirect' ? 'redirect' : 'active';
}

/** True while the edge serves the domain with its certificate. */
export function isServing(domain: Pick<CustomDomain, 'state'>): boolean {
  return domain.state === 'active' || domain.state === 'redirect';
}

/* What the dashboard shows of a domain: the console page reads these types too. */

/** The record a tenant creates at its DNS provider, always to the one target. */
export interface TenantDnsRecord {
  /** The Name field: the label under the registrable domain (`shop`), `@` for the apex. */
  readonly name: string;
  /** The zone the record goes in: the registrable domain. */
  readonly zone: string;
  /** CNAME for a subdomain; for an apex an ALIAS or ANAME, whichever the provider offers. */
  readonly type: 'CNAME' | 'ALIAS/ANAME';
  /** The project's target, `<target id>.domains.<platform domain>`. */
  readonly value: string;
  readonly ttl: number;
}

/**
 * The second record of an apex (or of a name whose provider flattens CNAMEs): the TXT
 * `_animal-store.<domain>` whose value is the project's ownership token. Addresses cannot say
 * which project a name is for; this record does.
 */
export interface OwnershipDnsRecord {
  /** The Name field under the zone: `_animal-store` for the apex, `_animal-store.shop` below it. */
  readonly name: string;
  readonly zone: string;
  readonly type: 'TXT';
  /** The project's ownership token (public, never a secret). */
  readonly value: string;
  readonly ttl: number;
}

/** A custom domain as the dashboard shows it. */
export interface DomainView {
  readonly name: string;
  /** The name as typed in its own script, for an internationalized name. */
  readonly unicodeName?: string;
  readonly role: DomainRole;
  readonly state: DomainState;
  readonly reason?: string;
  /** The DNS record to create. */
  readonly record: TenantDnsRecord;
  /** For an apex: the TXT record that proves the project owns it, created beside the ALIAS/ANAME. */
  readonly ownershipRecord?: OwnershipDnsRecord;
  /** For an apex: what to do where the provider has no ALIAS/ANAME. */
  readonly apexFallback?: string;
  readonly certificate: EdgeCertificateState;
  /** When it entered its state (ISO 8601), and for how long it has been in it. */
  readonly since: string;
  readonly secondsInState: number;
  readonly addedAt: string;
  /** Notices for the tenant: within 48 hours of adding, while its DNS is not verified, the propagation notice. */
  readonly notices: readonly string[];
  /** After 30 minutes with the certificate pending: the spec's troubleshooting steps. */
  readonly troubleshooting?: readonly string[];
}

/** The outcome of a verification: the domain after it, and the verdict in the tenant's words. */
export interface Verification {
  readonly domain: DomainView;
  readonly verified: boolean;
  /** The DNS verdict (tools/domains.ts names), or `edge-dns-invalid` when only the edge's check failed. */
  readonly verdict: string;
  readonly summary: string;
  readonly fix: string;
}

/** The outcome of a removal. */
export interface Removal {
  readonly name: string;
  /** `pending`: the edge could not delete the tenant now; the stale-tenant sweep will. */
  readonly tenant: 'deleted' | 'pending';
}
