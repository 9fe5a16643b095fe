import { type CustomDomain, MAX_DOMAINS_PER_PROJECT } from './custom-domain';
import { type CustomDomainsOptions, now, type Writer } from './custom-domains-ports';
import { DomainError } from '../errors';

/**
 * Claims: a name may be asked for by several projects at once, and is owned by one. Each
 * project's record of a name it does not own is its claim (keyed by name and project); the
 * owner's record is the one item per name the authorizer reads. The first project whose DNS
 * proof holds at verify time takes the name (domain-ownership.ts says what proves it), and
 * later a project whose proof holds takes it over: the proof shows current control of the zone.
 * A claim that never verifies is released after {@link CLAIM_WINDOW_MS}. The cap of domains per
 * project is a conditional counter, so it holds whatever the concurrency.
 */

/** How long an unverified claim (or a name lost to another project) stays before it is released. */
export const CLAIM_WINDOW_MS = 7 * 24 * 60 * 60_000;
const CLAIM_WINDOW_DAYS = CLAIM_WINDOW_MS / (24 * 60 * 60_000);

type Store = Pick<CustomDomainsOptions, 'store'>;

/**
 * True when the record holds nothing any more and is released: a claim, or an owner's record
 * never verified (stored before claims existed), whose window has passed without a tenant.
 */
export function isReleasable(domain: CustomDomain, nowMs: number): boolean {
  if (domain.attached || domain.migratedFrom !== undefined) return false;
  const unverified = domain.claim === true || (domain.servedAt === undefined && domain.proof === undefined);
  return unverified && nowMs - Date.parse(domain.lostAt ?? domain.addedAt) >= CLAIM_WINDOW_MS;
}

/** Releases the record (its place under the cap too); false when another request changed it first. */
export async function release({ store }: Store, domain: CustomDomain): Promise<boolean> {
  const released = domain.claim
    ? (await store.deleteClaim(domain.name, domain.project), true)
    : await store.delete(domain.name, domain.project);
  if (released) await store.releaseDomain(domain.project);
  return released;
}

/** Why a released claim is gone, for a verify or a change that asks for it. */
export function releasedWords(name: string): string {
  return `${name} was released: it was not verified within ${CLAIM_WINDOW_DAYS} days of being added. Add it again to claim it.`;
}

/**
 * Takes one of the project's places under the cap, atomically: a conditional increment of its
 * counter, so 100 simultaneous adds leave exactly {@link MAX_DOMAINS_PER_PROJECT}. The counter
 * starts, for a project with domains from before it existed, at their number. Released claims
 * free their places first when the cap is reached.
 */
export async function reservePlace(options: Writer, project: string): Promise<void> {
  const { store } = options;
  if ((await store.domainCount(project)) === undefined) {
    await store.startDomainCount(project, (await store.listByProject(project)).length);
  }
  if (await store.reserveDomain(project, MAX_DOMAINS_PER_PROJECT)) return;
  const nowMs = options.clock();
  let freed = 0;
  for (const domain of await store.listByProject(project)) {
    if (isReleasable(domain, nowMs) && (await release(options, domain))) freed += 1;
  }
  if (freed > 0 && (await store.reserveDomain(project, MAX_DOMAINS_PER_PROJECT))) return;
  throw new DomainError(
    'too_many_domains',
    `Project ${project} has ${MAX_DOMAINS_PER_PROJECT} custom domains, the most one project may have: remove one first.`,
  );
}

/** What a pending claim on a name another project owns shows (never which project). */
export function ownedElsewhereNotice(name: string): string {
  return `${name} serves another project now. It becomes this project's when its DNS shows this project's proof (the record above) and you verify it; an unverified claim is released after ${CLAIM_WINDOW_DAYS} days.`;
}

/** What the project that lost a name reads on its record (never who took it). */
export function lostWords(name: string, at: string): string {
  const until = new Date(Date.parse(at) + CLAIM_WINDOW_MS).toISOString();
  return `${name} now serves another project: on ${at} its DNS showed that project's proof (a CNAME to its target, or its TXT record), which shows who controls the name now. If the name is still yours, point its CNAME at this project's target (or set this project's TXT record) and verify again; otherwise this record is released on ${until}.`;
}

/**
 * Makes the project the owner of the name its claim names, its proof having held: one
 * conditional write on the owner's record as it was read (`owner`), so of two projects whose
 * proofs hold at once, one wins and the other is refused `domain_busy`. A former owner keeps
 * its record as a claim, failed, saying why. The new owner's record has no tenant yet: the
 * verification attaches it (at the edge, an existing tenant is rerouted to its new project).
 */
export async function takeName(
  options: Writer,
  claim: CustomDomain,
  owner: CustomDomain | undefined,
): Promise<CustomDomain> {
  const { store } = options;
  const at = now(options);
  const next: CustomDomain = {
    ...claim,
    state: 'pending-dns',
    since: claim.state === 'pending-dns' ? claim.since : at,
    attached: false,
    certificate: 'none',
    version: claim.version + 1,
  };
  // The owner's record: no longer a claim, nor lost, nor failed.
  for (const key of ['claim', 'lostAt', 'reason'] as const) delete (next as Partial<CustomDomain>)[key];
  if (!(await store.takeName(next, owner))) {
    throw new DomainError('domain_busy', `${claim.name} changed while this request ran: retry.`);
  }
  if (owner && owner.project !== claim.project) {
    await store.putClaim({
      ...owner,
      claim: true,
      role: owner.role === 'primary' ? 'additional' : owner.role,
      state: 'failed',
      reason: lostWords(owner.name, at),
      since: at,
      lostAt: at,
      attached: false,
      certificate: 'none',
      version: owner.version + 1,
    });
    if (owner.role === 'primary') await store.releasePrimary(owner.project, owner.name);
  }
  await store.deleteClaim(claim.name, claim.project);
  return next;
}
