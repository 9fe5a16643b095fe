import type { CustomDomain } from './custom-domain';
import type { DnsLookup } from './dns-verdict';
import type { EdgeTenants } from './edge-tenants';
import { DomainError } from './errors';

/**
 * What the domains service acts over (the stored domains, the edge's tenants, DNS, a clock), and
 * the few helpers every part of it writes through: the versioned save, the edge-call wrapper and
 * the clock's timestamp. The service (custom-domains.ts), the primary claim, the certificate
 * transitions and the imported-domain path all share these.
 */

/** What the service needs of storage: one record per name, whichever project holds it. */
export interface CustomDomainStore {
  /** The domain of that name (a strongly consistent read). */
  get(name: string): Promise<CustomDomain | undefined>;
  /** A project's domains. */
  listByProject(project: string): Promise<CustomDomain[]>;
  /** Stores a new domain; false when the name is attached already, to any project. */
  create(domain: CustomDomain): Promise<boolean>;
  /** Replaces the domain; false unless the stored one is of the same project at `version - 1`. */
  update(domain: CustomDomain): Promise<boolean>;
  /** Deletes the project's domain; false when that project has no such domain. */
  delete(name: string, project: string): Promise<boolean>;
  /**
   * The domain the project's primary claim names (a strongly consistent read; the project
   * index is not), undefined when none is claimed. The claim is what makes exactly one
   * domain the primary when two are added at once.
   */
  claimedPrimary(project: string): Promise<string | undefined>;
  /**
   * Makes the claim name `name`, only if it still names `expected` (undefined: only if there
   * is no claim); false when another request changed it first.
   */
  claimPrimary(project: string, name: string, expected: string | undefined): Promise<boolean>;
  /** Drops the project's claim if it names `name` (the last domain's removal). */
  releasePrimary(project: string, name: string): Promise<void>;
}

export interface CustomDomainsOptions {
  readonly store: CustomDomainStore;
  readonly edge: EdgeTenants;
  readonly dns: DnsLookup;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  /** The spec's `{platform_cname_target}`: every custom domain is a CNAME (or ALIAS) to it. */
  readonly target: string;
  /** The platform's own domain: names under it are refused. */
  readonly platformDomain: string;
}

/** What a write may change of a stored domain. */
export type Changes = Partial<Omit<CustomDomain, 'name' | 'project' | 'version' | 'since' | 'addedAt'>>;

/** What a write needs: the store and the clock. */
export type Writer = Pick<CustomDomainsOptions, 'store' | 'clock'>;

/** The clock's time as an ISO timestamp. */
export function now({ clock }: Pick<CustomDomainsOptions, 'clock'>): string {
  return new Date(clock()).toISOString();
}

/** Writes the changes (a new `since` when the state changes, or on `restart`), refusing a lost race. */
export async function save(
  options: Writer,
  domain: CustomDomain,
  changes: Changes,
  { restart = false } = {},
): Promise<CustomDomain> {
  const state = changes.state ?? domain.state;
  const next: CustomDomain = {
    ...domain,
    ...changes,
    since: state !== domain.state || restart ? now(options) : domain.since,
    version: domain.version + 1,
  };
  if (state !== 'failed') delete (next as { reason?: string }).reason;
  const unchanged = (Object.keys(next) as (keyof CustomDomain)[]).every(
    (key) => key === 'version' || next[key] === domain[key],
  );
  if (unchanged && Object.keys(next).length === Object.keys(domain).length) return domain;
  if (!(await options.store.update(next))) {
    throw new DomainError('domain_busy', `${domain.name} changed while this request ran: retry.`);
  }
  return next;
}

/**
 * Moves a domain on for a read (undefined: removed meanwhile). When another request moved it
 * first (`domain_busy`), shows what that one wrote.
 */
export async function moveOnForRead(
  { store }: Pick<CustomDomainsOptions, 'store'>,
  domain: CustomDomain,
  move: () => Promise<CustomDomain>,
): Promise<CustomDomain | undefined> {
  try {
    return await move();
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'domain_busy') {
      const current = await store.get(domain.name);
      return current?.project === domain.project ? current : undefined;
    }
    throw error;
  }
}

/** Runs an edge call; a failure of the edge itself is reported as the edge being unavailable. */
export async function edgeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError('edge_unavailable', 'The edge cannot answer now: retry in a moment.', {
      cause: error,
    });
  }
}
