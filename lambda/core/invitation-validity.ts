import { InvitationRefusal, notFound } from './invitation-refusals';
import type { InvitationRecord } from './invitations';
import type { PersonRef } from './members';
import { mayManageMember, type Role } from './permissions';
import { INVITATION_DAY_MS, MAX_INVITATIONS_PER_DAY } from './invitation-limits';
import { hasOwners, type ProjectRecord } from './project';

/**
 * Whether a stored invitation still has the power to join someone (issue 27's security review):
 * its project is the one it was made in, and its inviter may still invite with its role.
 */

/**
 * Who made an invitation: a person (a session's, or a personal token's member), or a project's
 * console token (`'console-token'`), which acts as an owner only until the project has one.
 */
export type InviterRef = PersonRef | 'console-token';

/**
 * Refused `invitation_not_found` unless the invitation's project exists and was created no later
 * than it: a link never joins a later project of the same name (its deletion may have failed to
 * remove the invitation).
 */
export function checkSameProject(record: InvitationRecord, project: ProjectRecord | undefined): void {
  if (!project || Date.parse(project.createdAt) > Date.parse(record.createdAt)) throw notFound();
}

/**
 * Refused `invitation_inviter_gone` unless the inviter may still invite with the invitation's
 * role: a person's current role (`inviterRole`, read consistently by key now; undefined when they
 * are no member) must allow it, and a console token must still act (the project has no owner).
 * An invitation made before inviters were kept has none, and is accepted as before (see
 * doc/console.md).
 */
export function checkInviter(
  record: InvitationRecord,
  project: ProjectRecord,
  inviterRole: Role | undefined,
): void {
  const { inviter } = record;
  if (inviter === undefined) return;
  const allowed =
    inviter === 'console-token'
      ? !hasOwners(project)
      : inviterRole !== undefined && mayManageMember(inviterRole, 'manageMembers', [record.role]);
  if (!allowed) {
    throw new InvitationRefusal(
      'invitation_inviter_gone',
      `Whoever sent this invitation may no longer invite to ${record.project} as ${record.role} (removed, or their role changed): ask an owner or admin for a new one.`,
    );
  }
}

/**
 * Refused `too_many_invitations_today` when the project created {@link MAX_INVITATIONS_PER_DAY}
 * invitations in the 24 hours before `nowMs` (revoked ones too: revoking must not make the
 * platform an unbounded mailer). Counted from the listing, so not exact under concurrency: a
 * burst may pass it by as many invites as run at once, each still bounded by the pending cap.
 */
export function checkDailyCap(project: string, all: readonly InvitationRecord[], nowMs: number): void {
  const since = nowMs - INVITATION_DAY_MS;
  const recent = all.filter((each) => Date.parse(each.createdAt) > since).length;
  if (recent >= MAX_INVITATIONS_PER_DAY) {
    throw new InvitationRefusal(
      'too_many_invitations_today',
      `Project ${project} created ${MAX_INVITATIONS_PER_DAY} invitations in the last 24 hours, the most it may: try again later.`,
    );
  }
}
