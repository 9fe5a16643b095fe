import type { Role } from '../core/permissions';
import { ROLES } from '../core/permissions';
import type { ConsoleRoute } from './console-routes';
import type { Schema } from './schema';

/**
 * The console's routes of invitations (issue 27): a project's pending invitations, sending one,
 * revoking one, and opening one's link. Accepting happens at the sign-in's callback, where the
 * identity provider has just vouched for the person (console-sign-in.ts). Declared apart from
 * console-routes.ts, which spreads them into its one route table.
 */

/** A route's answer type for the compiler (as console-routes.ts's `answers`). */
function answers<Body>(): Body | undefined {
  return undefined;
}

/** An invitation as the console shows it: never its secret or its hash. */
export interface InvitationView {
  readonly invitationId: string;
  readonly email: string;
  readonly role: Role;
  readonly invitedBy?: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly state: 'pending' | 'accepted' | 'revoked';
}

/** What the holder of a link sees before joining. */
export interface InvitationPreview {
  readonly project: string;
  readonly email: string;
  readonly role: Role;
  readonly invitedBy?: string;
  readonly expiresAt: string;
}

/** `POST /invitations`: the address to invite and the role they will have. */
export const CREATE_INVITATION_BODY = {
  type: 'object',
  required: ['email', 'role'],
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 254 },
    role: { type: 'string', enum: ROLES },
  },
  additionalProperties: false,
} as const satisfies Schema;

/** `POST /invitations/open`: the token of the link (`inv_…`). */
export const OPEN_INVITATION_BODY = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 100 } },
  additionalProperties: false,
} as const satisfies Schema;

/** The fragment of an invitation's link: `/console/#invitation=inv_…` (never sent to a server by the browser). */
export const INVITATION_FRAGMENT = 'invitation';

/** The fragment the sign-in's callback returns a refused acceptance with: `/console/#invitation-refused=<code>`. */
export const INVITATION_REFUSED_FRAGMENT = 'invitation-refused';

export const INVITATION_ROUTES = [
  {
    operationId: 'listInvitations',
    method: 'GET',
    path: '/invitations',
    summary:
      "The project's pending invitations, newest first: the address, the role, who invited and when it expires (never its link).",
    successStatus: 200,
    action: 'listMembers',
    queryParameters: [],
    errors: [],
    answer: answers<{ readonly invitations: readonly InvitationView[] }>(),
  },
  {
    operationId: 'createInvitation',
    method: 'POST',
    path: '/invitations',
    summary:
      'Invites an address with a role (`{"email": "ana@example.com", "role": "developer"}`) for 7 days, emails the link and answers it once, to copy. Only an owner invites an owner.',
    successStatus: 201,
    action: 'manageMembers',
    audit: 'invitation.send',
    queryParameters: [],
    requestBody: CREATE_INVITATION_BODY,
    errors: ['invalid_body', 'too_many_invitations'],
    answer: answers<{ readonly invitation: InvitationView; readonly link: string }>(),
  },
  {
    operationId: 'revokeInvitation',
    method: 'DELETE',
    path: '/invitations/{invitationId}',
    summary: 'Revokes a pending invitation: its link no longer joins anyone.',
    successStatus: 200,
    action: 'manageMembers',
    audit: 'invitation.revoke',
    queryParameters: [],
    errors: ['invitation_not_found', 'invitation_used', 'invitation_revoked', 'invitation_expired'],
    answer: answers<{ readonly invitation: InvitationView }>(),
  },
  {
    operationId: 'openInvitation',
    method: 'POST',
    path: '/invitations/open',
    summary:
      'Opens an invitation\'s link (`{"token": "inv_…"}`) from the console\'s origin: its project, address and role; an HttpOnly cookie keeps it 10 minutes for the sign-in that accepts it.',
    successStatus: 200,
    access: 'sign-in',
    queryParameters: [],
    requestBody: OPEN_INVITATION_BODY,
    errors: ['invitation_not_found', 'invitation_used', 'invitation_revoked', 'invitation_expired'],
    answer: answers<InvitationPreview>(),
  },
] as const satisfies readonly ConsoleRoute<string>[];
