import type { PlanName } from '../lambda/core/plans';
import type { Members } from '../lambda/core/members';
import { DEV_OWNER } from './dev-people';

/** The project `npm start` serves (at `http://dev.localhost:<port>/v1` too). */
export const DEV_PROJECT = 'dev';

/** The development project's plan unless DEV_PROJECT_PLAN names another (the README states its numbers). */
export const DEV_PROJECT_DEFAULT_PLAN: PlanName = 'pro';

/** The development owner of `dev` (local/dev-people.ts), re-exported for the start's callers. */
export { DEV_OWNER };

/**
 * Makes the development owner an owner of `dev` at start (as the platform): added when missing,
 * made owner again when someone changed their role. From then on `dev`'s console token no longer
 * opens its console: the development owner signs in through the local provider instead.
 */
export async function ensureDevOwner(
  members: Members,
  issuer: string,
): Promise<'added' | 'kept' | 'restored'> {
  const person = { issuer, subject: DEV_OWNER.subject, email: DEV_OWNER.email, name: DEV_OWNER.name };
  const current = (await members.listOf(DEV_PROJECT)).find(
    (member) => member.issuer === issuer && member.subject === DEV_OWNER.subject,
  );
  if (!current) {
    await members.add(DEV_PROJECT, person, 'owner', 'platform');
    return 'added';
  }
  if (current.role === 'owner') return 'kept';
  await members.setRole(DEV_PROJECT, person, 'owner', 'platform');
  return 'restored';
}
