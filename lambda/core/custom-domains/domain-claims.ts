import { CLAIM_WINDOW_MS, type CustomDomain, MAX_DOMAINS_PER_PROJECT } from './custom-domain';
import { now, recordAfter, type Writer } from './custom-domains-ports';
import { DomainError } from '../errors';
import { decide, type Decision } from './lifecycle';

export { CLAIM_WINDOW_MS };
export { lostWords, ownedElsewhereNotice, releasedWords } from './lifecycle-words';

/**
 * Claims: a name may be asked for by several projects at once, and is owned by one. Each
 * project's record of a name it does not own is its claim (keyed by name and project); the
 * owner's record is the one item per name the authorizer reads. The first project whose DNS
 * proof holds at verify time takes the name (domain-ownership.ts says what proves it), and
 * later a project whose proof holds takes it over: the proof shows current control of the zone.
 * A claim that never verifies is released after {@link CLAIM_WINDOW_MS}. The cap of domains per
 * project is a conditional counter, so it holds whatever the concurrency.
 */

/**
 * True when the record holds nothing any more and is released: a claim, or an owner's record
 * never verified (stored before claims existed), whose window has passed without a tenant.
 */
export function isReleasable(domain: CustomDomain, nowMs: number): boolean {
  if (domain.attached || domain.migratedFrom !== undefined) return false;
  const unverified = domain.claim === true || (domain.servedAt === undefined && domain.proof === undefined);
  return unverified && nowMs - Date.parse(domain.lostAt ?? domain.addedAt) >= CLAIM_WINDOW_MS;
}

/**
 * Releases the record (its place under the cap too), as the lifecycle's `release` decides: only
 * a releasable one. False when another request released or changed it first; only the request
 * that released it tells {@link Writer.ruleEvents}, so a release is recorded once.
 */
export async function release(options: Writer, domain: CustomDomain): Promise<boolean> {
  const { store } = options;
  const releasable = isReleasable(domain, options.clock());
  decide(domain, 'release', { now: now(options), releasable });
  const released = domain.claim
    ? await store.deleteClaim(domain.name, domain.project)
    : await store.delete(domain.name, domain.project);
  if (!released) return false;
  await store.releaseDomain(domain.project);
  await options.ruleEvents?.released({ project: domain.project, name: domain.name });
  return true;
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

/**
 * Makes the project the owner of the name its claim names, its proof having held (`decision`:
 * the lifecycle's `verify` with the effects `take-name` and `contest-owner`): one conditional
 * write on the owner's record as it was read (`owner`), so of two projects whose proofs hold at
 * once, one wins and the other is refused `domain_busy`. A former owner keeps its record as a
 * claim, failed, saying why (the lifecycle's `contest`), and the contest is told for its project
 * (the name only, never who took it: {@link Writer.ruleEvents}). The new owner's record has no tenant
 * yet: the verification attaches it (at the edge, an existing tenant is rerouted to its new project).
 */
export async function takeName(
  options: Writer,
  claim: CustomDomain,
  owner: CustomDomain | undefined,
  decision: Decision,
): Promise<CustomDomain> {
  const { store } = options;
  const next = recordAfter(options, claim, decision);
  if (!(await store.takeName(next, owner))) {
    throw new DomainError('domain_busy', `${claim.name} changed while this request ran: retry.`);
  }
  if (owner && owner.project !== claim.project && decision.effects.includes('contest-owner')) {
    const contest = decide(owner, 'contest', { now: now(options) });
    await store.putClaim(recordAfter(options, owner, contest));
    if (contest.effects.includes('release-primary')) await store.releasePrimary(owner.project, owner.name);
    await options.ruleEvents?.contested({ project: owner.project, name: owner.name });
  }
  await store.deleteClaim(claim.name, claim.project);
  return next;
}
