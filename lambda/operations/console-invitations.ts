import type { InvitationPreview, InvitationView } from '../api/console-invitation-routes';
import { ApiError } from '../api/errors';
import { invitationCookie } from '../api/invitation-cookie';
import { type InvitationRecord, InvitationRefusal, type Invitations } from '../core/invitations';
import type { Role } from '../core/permissions';
import type { ConsoleEvent } from '../middleware/console-handler';
import { memberCall } from './console-members';

/**
 * The console's invitation operations (issue 27): list a project's pending invitations, send
 * one, revoke one, open a link. The route's action is checked first (console-handler.ts); the
 * invitation rules then check that only an owner invites an owner. Accepting is the sign-in
 * callback's ({@link acceptAtSignIn}).
 */

/** An invitation as the console shows it. */
export function invitationView(record: InvitationRecord): InvitationView {
  const { invitationId, email, role, invitedBy, createdAt, expiresAt, state } = record;
  return {
    invitationId,
    email,
    role,
    ...(invitedBy === undefined ? {} : { invitedBy }),
    createdAt,
    expiresAt,
    state,
  };
}

/** The invitation rules' refusals (and the member rules'), in the console's words. */
export async function invitationCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await memberCall(call);
  } catch (error) {
    if (error instanceof InvitationRefusal) throw new ApiError(error.kind, error.message);
    throw error;
  }
}

export function invitationOperations(invitations: Invitations) {
  return {
    listInvitations: async (event: ConsoleEvent<unknown>) => ({
      body: { invitations: (await invitations.pendingOf(event.project.name)).map(invitationView) },
    }),
    createInvitation: async (event: ConsoleEvent<{ readonly email: string; readonly role: Role }>) => {
      // A personal token's member, a session's person, else the console token (it has no person).
      const person = event.personalToken?.person ?? event.session?.record.person;
      const { record, link } = await invitationCall(() =>
        invitations.send(event.project.name, event.jsonBody.email, event.jsonBody.role, {
          role: event.role,
          ...(person === undefined ? {} : { email: person.email }),
          ref: person === undefined ? 'console-token' : { issuer: person.issuer, subject: person.subject },
        }),
      );
      return { body: { invitation: invitationView(record), link } };
    },
    revokeInvitation: async (event: ConsoleEvent<unknown>) => {
      const id = event.pathParameters?.invitationId ?? '';
      const revoked = await invitationCall(() => invitations.revoke(event.project.name, id));
      return { body: { invitation: invitationView(revoked) } };
    },
    openInvitation: async (event: ConsoleEvent<{ readonly token: string }>) => {
      const { token } = event.jsonBody;
      const record = await invitationCall(() => invitations.open(token));
      const body: InvitationPreview = {
        project: record.project,
        email: record.email,
        role: record.role,
        ...(record.invitedBy === undefined ? {} : { invitedBy: record.invitedBy }),
        expiresAt: record.expiresAt,
      };
      return { body, headers: { 'Set-Cookie': invitationCookie(token) } };
    },
  };
}
