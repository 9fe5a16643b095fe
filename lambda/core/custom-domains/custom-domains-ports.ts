import type { CustomDomain } from './custom-domain';
import type { DnsLookup } from './dns-verdict';
import type { TxtLookup } from './domain-ownership';
import type { EdgeTenants } from './edge-tenants';
import { DomainError } from '../errors';
import type { Decision, RecordChanges } from './lifecycle';

/**
 * What the domains service acts over (the stored domains, the edge's tenants, DNS, a clock), and
 * the few helpers every part of it writes through: the versioned save, the edge-call wrapper and
 * the clock's timestamp. The service (custom-domains.ts), the primary claim, the certificate
 * transitions and the imported-domain path all share these.
 */

/**
 * What the service needs of storage: the owner's record of a name (one per name, the item the
 * authorizer reads), and each other project's claim on it (keyed by name and project).
 */
export interface CustomDomainStore {
  /** The owner's record of that name (a strongly consistent read). */
  get(name: string): Promise<CustomDomain | undefined>;
  /** The project's claim on that name, when it does not own it (a strongly consistent read). */
  getClaim(name: string, project: string): Promise<CustomDomain | undefined>;
  /** A project's domains: those it owns and its claims. */
  listByProject(project: string): Promise<CustomDomain[]>;
  /** Stores a new record (a claim, or an owner's record); false when that record exists already. */
  create(domain: CustomDomain): Promise<boolean>;
  /** Replaces the record; false unless the stored one is of the same project at `version - 1`. */
  update(domain: CustomDomain): Promise<boolean>;
  /**
   * Makes `domain` the name's owner, only if the owner's record is still `previous` (undefined:
   * only if there is none); false when another request moved it first.
   */
  takeName(domain: CustomDomain, previous: CustomDomain | undefined): Promise<boolean>;
  /** Stores the record as the project's claim, replacing any (a former owner's record, kept for it). */
  putClaim(domain: CustomDomain): Promise<void>;
  /**
   * Deletes the project's claim on the name (it owns it now, or it is released); false when it
   * had none, so of two requests releasing it at once, one did.
   */
  deleteClaim(name: string, project: string): Promise<boolean>;
  /** Deletes the project's record of the name (owned or claimed); false when it has none. */
  delete(name: string, project: string): Promise<boolean>;
  /** How many domains the project holds (its counter); undefined before its first add since counters exist. */
  domainCount(project: string): Promise<number | undefined>;
  /** Starts the project's counter at `count`, unless another request started it first. */
  startDomainCount(project: string, count: number): Promise<void>;
  /** Counts one more domain, atomically, only while the count is under `max`; false when it is not. */
  reserveDomain(project: string, max: number): Promise<boolean>;
  /** Counts one domain fewer (a removal, a released claim). */
  releaseDomain(project: string): Promise<void>;
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
  readonly dns: DnsLookup & TxtLookup;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  /**
   * The shared target, `domains.<platform domain>`: each project's own target is a name under
   * it (`<target id>.domains.<platform domain>`, project-target.ts).
   */
  readonly target: string;
  /** Gives a project made before per-project targets its target id (set once). */
  readonly projects?: ProjectTargets;
  /** The platform's own domain: names under it are refused. */
  readonly platformDomain: string;
  /** Told what the platform's own rules did to a project's domain (the audit log). */
  readonly ruleEvents?: DomainRuleEvents;
}

/** A project's domain, as a rule's event names it. */
export interface DomainOfProject {
  readonly project: string;
  readonly name: string;
}

/**
 * What the platform's rules, not a request of the project, did to a project's domain: told once,
 * by the request that made the change, after it is made. A listener never throws (a change made
 * stays made): it reports its own failures.
 */
export interface DomainRuleEvents {
  /** Another project proved control of the name's DNS and took it from this project. */
  contested(domain: DomainOfProject): Promise<void>;
  /** The project's claim on the name stayed unverified past the claim window, and was dropped. */
  released(domain: DomainOfProject): Promise<void>;
}

/** What the service needs of the projects' storage: a target id for a project that has none. */
export interface ProjectTargets {
  /** The project's target id, `candidate` if it had none; undefined when there is no such project. */
  assignTargetId(project: string, candidate: string): Promise<string | undefined>;
}

/** What a write may change of a stored domain besides its state (its state changes only by a {@link Decision}). */
export type Changes = Omit<RecordChanges, 'state' | 'claim' | 'lostAt' | 'reason'>;

/** What a write needs: the store and the clock, and who is told of a rule's changes. */
export type Writer = Pick<CustomDomainsOptions, 'store' | 'clock' | 'ruleEvents'>;

/**
 * The project's record of a name: the owner's when the project owns it, else its claim;
 * undefined when it has neither. Every operation on "a domain of the project" reads this.
 */
export async function recordOf(
  { store }: Pick<CustomDomainsOptions, 'store'>,
  name: string,
  project: string,
): Promise<CustomDomain | undefined> {
  const owner = await store.get(name);
  if (owner?.project === project) return owner;
  return store.getClaim(name, project);
}

/** The clock's time as an ISO timestamp. */
export function now({ clock }: Pick<CustomDomainsOptions, 'clock'>): string {
  return new Date(clock()).toISOString();
}

/** Writes changes other than the state, refusing a lost race. */
export function save(options: Writer, domain: CustomDomain, changes: Changes): Promise<CustomDomain> {
  return write(options, domain, domainAfter(options, domain, changes, false));
}

/**
 * Writes what a {@link Decision} makes of the record (the only way its state changes), with
 * `extra` changes beside it, refusing a lost race.
 */
export function saveDecision(
  options: Writer,
  domain: CustomDomain,
  decision: Decision,
  extra: Changes = {},
): Promise<CustomDomain> {
  return write(options, domain, recordAfter(options, domain, decision, extra));
}

/** The record a decision makes of `domain` (a new `since` when the state changes, or on a restart). */
export function recordAfter(
  options: Pick<CustomDomainsOptions, 'clock'>,
  domain: CustomDomain,
  decision: Decision,
  extra: Changes = {},
): CustomDomain {
  const next = domainAfter(options, domain, { ...decision.changes, ...extra }, decision.restart);
  for (const key of decision.drop) delete (next as Partial<CustomDomain>)[key];
  return next;
}

function domainAfter(
  options: Pick<CustomDomainsOptions, 'clock'>,
  domain: CustomDomain,
  changes: RecordChanges,
  restart: boolean,
): CustomDomain {
  const state = changes.state ?? domain.state;
  const next: CustomDomain = {
    ...domain,
    ...changes,
    since: state !== domain.state || restart ? now(options) : domain.since,
    version: domain.version + 1,
  };
  if (state !== 'failed') delete (next as { reason?: string }).reason;
  return next;
}

/** Writes `next` over `domain` (nothing when it changes nothing), refusing a lost race. */
async function write(options: Writer, domain: CustomDomain, next: CustomDomain): Promise<CustomDomain> {
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
      return recordOf({ store }, domain.name, domain.project);
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
