import type { ConsoleSessionRecord, ConsoleSessions } from './console-session';
import { StoreUnavailableError } from './errors';
import type { Role } from './permissions';
import { PERSONAL_TOKEN_PREFIX, type PersonalTokens } from './personal-tokens';
import {
  consoleTokenMatches,
  hasOwners,
  parseConsoleToken,
  type ProjectRecord,
  type ProjectStore,
} from './project';

/**
 * Who calls the console's API: one project, proved either by its console token (`Authorization:
 * Bearer pct_<project>_<secret>`, the tools) or by a session the token was exchanged for (the
 * browser's cookie). Unknown, malformed and wrong tokens fail alike, so a caller learns nothing
 * about which projects exist; an unknown, ended or expired session fails alike too.
 *
 * Issue 26: a person's session (an OpenID sign-in) acts with the person's role in its project;
 * a console token, and a session made from one, act as an owner until the project has an owner
 * of its own, and are refused from then on (`console_token_retired`).
 *
 * Issue 28: a personal access token (`Bearer pat_…`, a member's, for tools) acts for its member
 * with the lower of its role and the member's current one; it is refused once expired, revoked,
 * or its member is gone.
 */

/** `Bearer <token>`, the scheme matched case-insensitively (RFC 9110 §11.1). */
const BEARER = /^bearer +(\S+) *$/i;

export type ConsoleAccessFailure =
  | 'not_signed_in'
  | 'invalid_console_token'
  | 'console_token_retired'
  | 'session_ended'
  | 'membership_ended'
  | 'invalid_personal_token'
  | 'personal_token_expired'
  | 'personal_token_revoked'
  | 'store_unavailable';

export type ConsoleAccess =
  | { readonly granted: true; readonly via: 'token'; readonly project: ProjectRecord; readonly role: Role }
  | {
      readonly granted: true;
      readonly via: 'session';
      readonly project: ProjectRecord;
      readonly session: ConsoleSessionRecord;
      /** The caller's role in the project (read per request, cached at most 30 s). */
      readonly role: Role;
      /** The cookie's secret, to check the request's CSRF token against. */
      readonly sessionSecret: string;
    }
  | {
      readonly granted: true;
      readonly via: 'personal-token';
      readonly project: ProjectRecord;
      /** The lower of the token's role and its member's current one (read per request, cached at most 30 s). */
      readonly role: Role;
      readonly person: { readonly issuer: string; readonly subject: string; readonly email: string };
      readonly token: { readonly id: string; readonly name: string };
    }
  | { readonly granted: false; readonly failure: ConsoleAccessFailure };

/** What a request presents: its Authorization header values and its session cookie's values. */
export interface ConsoleCredentials {
  readonly authorization: readonly string[];
  readonly sessionCookies: readonly string[];
}

const refused = (failure: ConsoleAccessFailure): ConsoleAccess => ({ granted: false, failure });

async function orUnavailable(decide: () => Promise<ConsoleAccess>): Promise<ConsoleAccess> {
  try {
    return await decide();
  } catch (error) {
    if (error instanceof StoreUnavailableError) return refused('store_unavailable');
    throw error;
  }
}

/**
 * Decides whose console a request is for. A bearer token wins over a cookie (a tool's request
 * is not ambient, so it needs no CSRF check); a request with neither is not signed in.
 */
export async function authenticateConsole(
  { authorization, sessionCookies }: ConsoleCredentials,
  projects: ProjectStore,
  sessions: ConsoleSessions,
  personalTokens?: Pick<PersonalTokens, 'authenticate'>,
): Promise<ConsoleAccess> {
  if (authorization.length > 0) {
    const [header] = authorization;
    const match = authorization.length === 1 && header !== undefined ? BEARER.exec(header.trim()) : null;
    if (match?.[1]?.startsWith(PERSONAL_TOKEN_PREFIX)) {
      const text = match[1];
      if (!personalTokens) return refused('invalid_personal_token');
      return orUnavailable(async () => {
        const access = await personalTokens.authenticate(text);
        if (!access.granted) return refused(access.failure);
        const { issuer, subject, email, tokenId, name } = access.record;
        return {
          granted: true,
          via: 'personal-token',
          project: access.project,
          role: access.role,
          person: { issuer, subject, email },
          token: { id: tokenId, name },
        };
      });
    }
    const token = match?.[1] === undefined ? undefined : parseConsoleToken(match[1]);
    if (!token) return refused('invalid_console_token');
    return orUnavailable(async () => {
      const project = await projects.get(token.project);
      if (!project || !consoleTokenMatches(project, token.secret)) return refused('invalid_console_token');
      if (hasOwners(project)) return refused('console_token_retired');
      return { granted: true, via: 'token', project, role: 'owner' };
    });
  }
  if (sessionCookies.length === 0) return refused('not_signed_in');
  // Two cookies of the name (one planted by a sibling page without the prefix's rules) is no session.
  const [secret] = sessionCookies;
  if (sessionCookies.length > 1 || secret === undefined) return refused('session_ended');
  return orUnavailable(async () => {
    const resumed = await sessions.resume(secret);
    if (!resumed.live) {
      if (resumed.end === 'membership_ended') return refused('membership_ended');
      if (resumed.end === 'token_retired') return refused('console_token_retired');
      return refused('session_ended');
    }
    return {
      granted: true,
      via: 'session',
      project: resumed.project,
      session: resumed.record,
      role: resumed.role,
      sessionSecret: secret,
    };
  });
}
