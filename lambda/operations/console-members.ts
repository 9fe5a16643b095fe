import { ApiError } from '../api/errors';
import type { ConsoleSessions } from '../core/console-session';
import type { MemberView } from '../core/console-views';
import {
  type MemberActor,
  type MemberRecord,
  MemberRefusal,
  type Members,
  memberId,
  type PersonRef,
  personOfMemberId,
} from '../core/members';
import type { ConsoleEvent } from '../middleware/console-handler';

/**
 * The console's member operations (issue 26): a project's members, adding one, changing a role,
 * removing one (or leaving), and a person's switch to another of their projects. The permission
 * table is checked twice: by the route's action (console-handler.ts) and by the member rules,
 * which alone know that only an owner touches owners and that anyone may leave.
 */

/** A member as the console shows it. */
export function memberView(record: MemberRecord): MemberView {
  const { issuer, subject, email, name, role, addedAt } = record;
  return {
    memberId: memberId(record),
    issuer,
    subject,
    email,
    ...(name === undefined ? {} : { name }),
    role,
    addedAt,
  };
}

/** Who asks: the signed-in person with their role, or a console token's holder (an owner, no person). */
export function actorOf(event: ConsoleEvent<unknown>): MemberActor {
  // A personal access token is no person here: it removes a member (its own included) only with the right to.
  const person = event.session?.record.person;
  return person ? { role: event.role, person } : { role: event.role };
}

/** The `{memberId}` path parameter; one that names nobody is not found, as another project's member. */
export function memberOf(event: ConsoleEvent<unknown>): PersonRef {
  const person = personOfMemberId(event.pathParameters?.memberId ?? '');
  if (!person) throw new ApiError('member_not_found', `Project ${event.project.name} has no such member.`);
  return person;
}

/** The member rules' refusals, in the console's words. */
export async function memberCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof MemberRefusal)) throw error;
    switch (error.kind) {
      case 'already_member':
        throw new ApiError('member_exists', error.message);
      case 'not_a_member':
      case 'no_such_project':
        throw new ApiError('member_not_found', error.message);
      case 'last_owner':
        throw new ApiError('last_owner', error.message);
      case 'member_changed':
        throw new ApiError('member_changed', error.message);
      case 'not_permitted':
        throw new ApiError('action_not_permitted', error.message);
      case 'invalid_member':
        throw new ApiError('invalid_body', error.message);
    }
  }
}

/** The session's person, or the caller's issuer given: a token's holder must name the issuer. */
function issuerOf(event: ConsoleEvent<{ readonly issuer?: string }>): string {
  const issuer =
    event.jsonBody.issuer ?? event.session?.record.person?.issuer ?? event.personalToken?.person.issuer;
  if (issuer === undefined) {
    throw new ApiError(
      'invalid_body',
      'Name the person\'s provider: "issuer" is required with a console token.',
    );
  }
  return issuer;
}

/** The member and session operations of the console's route table. */
export function memberOperations(members: Members, sessions: ConsoleSessions) {
  const session = (event: ConsoleEvent<unknown>) => {
    if (!event.session) throw new ApiError('not_signed_in', 'Not signed in.');
    return event.session;
  };
  return {
    switchProject: async (event: ConsoleEvent<{ readonly project: string }>) => {
      const { record, secret } = session(event);
      const view = await sessions.switchProject(record, secret, event.jsonBody.project);
      if (!view) {
        throw new ApiError('project_not_found', `You are no member of a project ${event.jsonBody.project}.`);
      }
      return { body: view };
    },
    listMembers: async (event: ConsoleEvent<unknown>) => ({
      body: { members: (await members.listOf(event.project.name)).map(memberView) },
    }),
    addMember: async (
      event: ConsoleEvent<{
        readonly issuer?: string;
        readonly subject: string;
        readonly email: string;
        readonly name?: string;
        readonly role: MemberRecord['role'];
      }>,
    ) => {
      const { subject, email, name, role } = event.jsonBody;
      const person = { issuer: issuerOf(event), subject, email, ...(name === undefined ? {} : { name }) };
      const added = await memberCall(() => members.add(event.project.name, person, role, actorOf(event)));
      return { body: memberView(added) };
    },
    setMemberRole: async (event: ConsoleEvent<{ readonly role: MemberRecord['role'] }>) => {
      const changed = await memberCall(() =>
        members.setRole(event.project.name, memberOf(event), event.jsonBody.role, actorOf(event)),
      );
      return { body: memberView(changed) };
    },
    removeMember: async (event: ConsoleEvent<unknown>) => {
      const removed = await memberCall(() =>
        members.remove(event.project.name, memberOf(event), actorOf(event)),
      );
      return { body: memberView(removed) };
    },
  };
}
