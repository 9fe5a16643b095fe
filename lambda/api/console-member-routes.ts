import type { ConsoleSessionView, MemberView } from '../core/console-views';
import { ROLES } from '../core/permissions';
import type { ConsoleRoute } from './console-routes';
import type { Schema } from './schema';

/**
 * The console's routes of people (issue 26): a person's switch of project, and a project's
 * members. Declared apart from console-routes.ts, which spreads them into its one route table.
 */

/** A route's answer type for the compiler (as console-routes.ts's `answers`). */
function answers<Body>(): Body | undefined {
  return undefined;
}

/** `POST /session/project`: the project to switch to (one of the person's). */
export const SWITCH_PROJECT_BODY = {
  type: 'object',
  required: ['project'],
  properties: { project: { type: 'string', minLength: 1, maxLength: 63 } },
  additionalProperties: false,
} as const satisfies Schema;

/**
 * `POST /members`: a person as their provider names them (the issuer defaults to the caller's),
 * and their role. Invitations by email come with issue 27.
 */
export const ADD_MEMBER_BODY = {
  type: 'object',
  required: ['subject', 'email', 'role'],
  properties: {
    issuer: { type: 'string', minLength: 1, maxLength: 300 },
    subject: { type: 'string', minLength: 1, maxLength: 255 },
    email: { type: 'string', minLength: 3, maxLength: 254 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    role: { type: 'string', enum: ROLES },
  },
  additionalProperties: false,
} as const satisfies Schema;

/** `POST /members/{memberId}/role`: the member's new role. */
export const SET_ROLE_BODY = {
  type: 'object',
  required: ['role'],
  properties: { role: { type: 'string', enum: ROLES } },
  additionalProperties: false,
} as const satisfies Schema;

export const SESSION_PROJECT_ROUTES = [
  {
    operationId: 'switchProject',
    method: 'POST',
    path: '/session/project',
    summary:
      'Switches a person\'s session to another of their projects (`{"project": "acme"}`); any other project is not found.',
    successStatus: 200,
    access: 'session',
    queryParameters: [],
    requestBody: SWITCH_PROJECT_BODY,
    errors: ['project_not_found'],
    answer: answers<ConsoleSessionView>(),
  },
] as const satisfies readonly ConsoleRoute<string>[];

export const MEMBER_ROUTES = [
  {
    operationId: 'listMembers',
    method: 'GET',
    path: '/members',
    summary: "The project's members: who they are at their provider, their email, name and role.",
    successStatus: 200,
    action: 'listMembers',
    queryParameters: [],
    errors: [],
    answer: answers<{ readonly members: readonly MemberView[] }>(),
  },
  {
    operationId: 'addMember',
    method: 'POST',
    path: '/members',
    summary:
      'Adds a person as a member (`{"subject": "…", "email": "…", "role": "viewer"}`; the issuer defaults to yours). Only an owner adds an owner.',
    successStatus: 201,
    action: 'manageMembers',
    queryParameters: [],
    requestBody: ADD_MEMBER_BODY,
    audit: 'member.add',
    errors: ['member_exists', 'invalid_body'],
    answer: answers<MemberView>(),
  },
  {
    operationId: 'setMemberRole',
    method: 'POST',
    path: '/members/{memberId}/role',
    summary:
      'Changes a member\'s role (`{"role": "developer"}`). Only an owner makes or unmakes an owner; the last owner stays one.',
    successStatus: 200,
    action: 'changeRoles',
    queryParameters: [],
    requestBody: SET_ROLE_BODY,
    audit: 'member.role',
    errors: ['member_not_found', 'last_owner', 'member_changed'],
    answer: answers<MemberView>(),
  },
  {
    operationId: 'removeMember',
    method: 'DELETE',
    path: '/members/{memberId}',
    summary:
      'Removes a member (any member may remove themselves: leave); their sessions end within 30 s. The last owner cannot leave.',
    successStatus: 200,
    queryParameters: [],
    audit: 'member.remove',
    errors: ['member_not_found', 'last_owner', 'member_changed'],
    answer: answers<MemberView>(),
  },
] as const satisfies readonly ConsoleRoute<string>[];
