import { TOKEN_SCOPE_PARAMETER, TOKEN_SCOPES } from '../api/console-token-routes';
import { ApiError } from '../api/errors';
import { may, type Role } from '../core/permissions';
import { PersonalTokenRefusal, type PersonalTokens, personalTokenView } from '../core/personal-tokens';
import type { ConsoleEvent } from '../middleware/console-handler';

/**
 * The console's operations of personal access tokens (issue 28): a person's own tokens, made,
 * listed and revoked from their session; an owner's (`manageTokens`) view of everyone's.
 */

/** The signed-in person of a session: tokens are made by people, never by a token. */
function personOf(event: ConsoleEvent<unknown>) {
  const person = event.session?.record.person;
  if (!person) {
    throw new ApiError(
      'person_session_required',
      event.personalToken
        ? 'A personal access token cannot manage tokens: sign in to the console as yourself.'
        : "Personal access tokens belong to people: sign in to the console as a member (a console token's session has no person).",
    );
  }
  return person;
}

/** The token rules' refusals, in the console's words. */
async function tokenCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof PersonalTokenRefusal)) throw error;
    switch (error.kind) {
      case 'role_too_high':
        throw new ApiError('token_role_too_high', error.message);
      case 'too_many_tokens':
        throw new ApiError('too_many_tokens', error.message);
      case 'token_not_found':
        throw new ApiError('token_not_found', error.message);
      case 'invalid_token':
        throw new ApiError('invalid_body', error.message);
    }
  }
}

function forbidden(role: Role, project: string): ApiError {
  return new ApiError(
    'action_not_permitted',
    `Your role in project ${project}, ${role}, may not see other members' tokens (manageTokens).`,
  );
}

/** The token operations of the console's route table. */
export function tokenOperations(tokens: PersonalTokens) {
  return {
    listTokens: async (event: ConsoleEvent<unknown>) => {
      const person = personOf(event);
      const scope = event.query[TOKEN_SCOPE_PARAMETER] ?? 'own';
      if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) {
        throw new ApiError(
          'invalid_parameter',
          `scope must be one of ${TOKEN_SCOPES.join(', ')}, not ${JSON.stringify(scope)}.`,
        );
      }
      if (scope === 'project' && !may(event.role, 'manageTokens'))
        throw forbidden(event.role, event.project.name);
      const records = await tokens.listOf(event.project.name, scope === 'project' ? undefined : person);
      return { body: { tokens: records.map(personalTokenView) } };
    },
    createToken: async (
      event: ConsoleEvent<{ readonly name: string; readonly role: Role; readonly expiresInDays: number }>,
    ) => {
      const person = personOf(event);
      const { token, record } = await tokenCall(() =>
        tokens.create(event.project.name, { ...person, role: event.role }, event.jsonBody),
      );
      return { body: { token, personalToken: personalTokenView(record) } };
    },
    revokeToken: async (event: ConsoleEvent<unknown>) => {
      const person = personOf(event);
      const revoked = await tokenCall(() =>
        tokens.revoke(event.project.name, event.pathParameters?.tokenId ?? '', {
          person,
          mayRevokeOthers: may(event.role, 'manageTokens'),
        }),
      );
      return { body: { personalToken: personalTokenView(revoked) } };
    },
  };
}
