import { ROLES } from '../core/permissions';
import {
  type IssuedPersonalToken,
  MAX_TOKEN_DAYS,
  MAX_TOKEN_NAME,
  type PersonalTokenView,
} from '../core/personal-token-views';
import type { ConsoleRoute } from './console-routes';
import type { Schema } from './schema';

/**
 * The console's routes of personal access tokens (issue 28), spread into the one route table by
 * console-routes.ts. A member manages their own tokens whatever their role (no action of the
 * permission table: a token never exceeds its member's role anyway); `manageTokens` (owners)
 * adds everyone's tokens in the project, to list and revoke. Only a person's session manages
 * tokens: a token cannot make another (which would outlive it), nor a console token's session.
 */

/** A route's answer type for the compiler (as console-routes.ts's `answers`). */
function answers<Body>(): Body | undefined {
  return undefined;
}

/** `POST /tokens`: the token's name, its role (at most the caller's) and its life in days. */
export const CREATE_TOKEN_BODY = {
  type: 'object',
  required: ['name', 'role', 'expiresInDays'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: MAX_TOKEN_NAME },
    role: { type: 'string', enum: ROLES },
    expiresInDays: { type: 'integer', minimum: 1, maximum: MAX_TOKEN_DAYS },
  },
  additionalProperties: false,
} as const satisfies Schema;

/** `GET /tokens?scope=project`: every member's tokens (`manageTokens`); the default, `own`, the caller's. */
export const TOKEN_SCOPE_PARAMETER = 'scope';
export const TOKEN_SCOPES = ['own', 'project'] as const;

export const TOKEN_ROUTES = [
  {
    operationId: 'listTokens',
    method: 'GET',
    path: '/tokens',
    summary:
      "Your personal access tokens in the project, newest first, with their last use (never a secret); `?scope=project`: every member's (owners).",
    successStatus: 200,
    queryParameters: [TOKEN_SCOPE_PARAMETER],
    errors: ['person_session_required'],
    answer: answers<{ readonly tokens: readonly PersonalTokenView[] }>(),
  },
  {
    operationId: 'createToken',
    method: 'POST',
    path: '/tokens',
    summary: `Creates a personal access token (\`{"name": "ci", "role": "developer", "expiresInDays": 90}\`; a role at most yours, 1 to ${MAX_TOKEN_DAYS} days); its text (\`pat_…\`) is in the answer once and never again.`,
    successStatus: 201,
    queryParameters: [],
    requestBody: CREATE_TOKEN_BODY,
    audit: 'token.create',
    errors: ['person_session_required', 'token_role_too_high', 'too_many_tokens'],
    answer: answers<IssuedPersonalToken>(),
  },
  {
    operationId: 'revokeToken',
    method: 'DELETE',
    path: '/tokens/{tokenId}',
    summary:
      "Revokes a personal access token: yours, or (owners) any member's; it is refused at once (again is fine: the first time is kept).",
    successStatus: 200,
    queryParameters: [],
    audit: 'token.revoke',
    errors: ['person_session_required', 'token_not_found'],
    answer: answers<{ readonly personalToken: PersonalTokenView }>(),
  },
] as const satisfies readonly ConsoleRoute<string>[];
