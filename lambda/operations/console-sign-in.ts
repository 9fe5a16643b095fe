import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  clearedSignInCookie,
  cookieValues,
  sessionCookie,
  SIGN_IN_COOKIE_NAME,
  signInCookie,
} from '../api/console-cookies';
import { RETURN_TO_PARAMETER, SIGN_IN_CALLBACK_PATH, SIGN_IN_START_PATH } from '../api/console-routes';
import { CONSOLE_ERROR_CATALOGUE } from '../api/error-catalogue';
import { ApiError } from '../api/errors';
import type { AuditLog } from '../core/audit';
import { headerValue, headerValues } from '../api/http';
import { readQuery } from '../api/query';
import {
  type ConsoleSessions,
  MAX_LIVE_SESSIONS_PER_PROJECT,
  SESSION_MAX_LIFETIME_MS,
} from '../core/console-session';
import { type IdentityProvider, type Person, SignInRefusedError } from '../core/identity';
import {
  openPendingSignIn,
  PENDING_SIGN_IN_TTL_MS,
  safeReturnTo,
  sealPendingSignIn,
} from '../core/pending-sign-in';
import type { RateLimiter } from '../core/rate-limiter';
import type { ApiLambdaHandler } from '../middleware/api-handler';
import { errorResponses } from '../middleware/error-responses';
import { rateLimit } from '../middleware/rate-limit';
import { type LoggedOperation, requestLog } from '../middleware/request-log';
import { log } from '../shared/observability';
import { recordSignIn, type SignInRequest, signInRequestOf } from './console-audit';

/**
 * The console's sign-in through the identity provider (issue 26): two browser navigations.
 * `GET …/sign-in/start` seals a new {@link PendingSignIn} into its cookie and sends the browser
 * to the provider; `GET …/sign-in/callback` opens it, has the provider's return checked through
 * the port, and starts the person's console session. Both are anyone's (nobody is signed in),
 * so both are counted before they run, per client IP, with anonymous calls: a start costs no
 * storage, and a callback reaches the provider only with a state that matches its cookie.
 */

/** The parameters a provider may put on its return (RFC 6749 §4.1.2, RFC 9207). */
const CALLBACK_PARAMETERS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri'];

export interface ConsoleSignInDependencies {
  readonly identity: IdentityProvider;
  /** The key that seals pending sign-ins (pendingSignInKey of secret material). */
  readonly pendingKey: () => Promise<Buffer>;
  /** The callback's URL, exactly as registered at the provider. */
  readonly callbackUrl: string;
  /**
   * Other hosts of the console where a start is moved to the callback's origin first, so that
   * the cookie is set where the provider returns (local mode's `127.0.0.1:<port>`). In AWS the
   * console has one origin. @default none
   */
  readonly movedHosts?: readonly string[];
  /**
   * Starts the person's console session: the `Set-Cookie` values of its answer. The request's
   * address and user agent go to the audit log's entry of the sign-in.
   */
  readonly startPersonSession: (person: Person, request?: SignInRequest) => Promise<readonly string[]>;
  readonly limiter: RateLimiter;
  /** Epoch milliseconds. */
  readonly clock: () => number;
}

function redirect(
  status: 302 | 303,
  location: string,
  cookies: readonly string[] = [],
): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { Location: location, 'Cache-Control': 'no-store' },
    multiValueHeaders: { 'Set-Cookie': [...cookies] },
    body: '',
  };
}

/** A refusal of the port, in the console's words; the pending sign-in's cookie goes with it. */
function refusal(error: unknown): unknown {
  if (!(error instanceof SignInRefusedError)) return error;
  const cleared = { 'Set-Cookie': clearedSignInCookie() };
  log().info('sign-in refused', { refusal: error.refusal });
  if (error.refusal === 'provider_unavailable') {
    return new ApiError(
      'identity_provider_unavailable',
      'The identity provider could not be reached; retry after the Retry-After delay.',
      { ...cleared, 'Retry-After': '5' },
    );
  }
  return new ApiError(
    'sign_in_refused',
    `The sign-in was refused (${error.refusal}): start it again from the console's sign-in page.`,
    cleared,
  );
}

/** One stack per path: log, count per client IP before running, answer errors as the Error body. */
function signInStack(
  name: LoggedOperation,
  limiter: RateLimiter,
  handle: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>,
): ApiLambdaHandler {
  const noStore = async (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>) => {
    if (request.response)
      request.response.headers = { ...request.response.headers, 'Cache-Control': 'no-store' };
  };
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(injectLambdaContext(log(), { resetKeys: true, logEvent: false }))
    .use(requestLog(name, () => ({ plan: 'anonymous' })))
    .use({ after: noStore, onError: noStore })
    .use(rateLimit(limiter, { countBeforeHandler: true }))
    .use(errorResponses())
    .handler(async (event) => {
      if (event.httpMethod !== 'GET') {
        throw new ApiError(
          'method_not_allowed',
          `${event.path} takes GET only: it is a browser navigation.`,
          {
            Allow: 'GET',
          },
        );
      }
      try {
        return await handle(event);
      } catch (error) {
        throw refusal(error);
      }
    }) as ApiLambdaHandler;
}

/** The sign-in's two handlers by path; `undefined` for any other path. */
export function consoleSignIn(
  dependencies: ConsoleSignInDependencies,
): (path: string) => ApiLambdaHandler | undefined {
  const { identity, pendingKey, callbackUrl, startPersonSession, limiter, clock } = dependencies;
  const movedHosts = dependencies.movedHosts ?? [];
  const callback = new URL(callbackUrl);
  const start = signInStack('signInStart', limiter, async (event) => {
    const query = readQuery(event, [RETURN_TO_PARAMETER]);
    // The cookie must be set at the host the provider returns to (localhost, not 127.0.0.1).
    const host = event.requestContext?.domainName ?? headerValue(event.headers, 'host');
    if (host !== undefined && movedHosts.includes(host.toLowerCase())) {
      const search = new URLSearchParams(query).toString();
      return redirect(302, `${callback.origin}${SIGN_IN_START_PATH}${search ? `?${search}` : ''}`);
    }
    const { url, pending } = await identity.start(safeReturnTo(query[RETURN_TO_PARAMETER]));
    const sealed = sealPendingSignIn(pending, await pendingKey(), clock());
    return redirect(302, url, [signInCookie(sealed, PENDING_SIGN_IN_TTL_MS / 1000)]);
  });
  const finish = signInStack('signInCallback', limiter, async (event) => {
    const query = readQuery(event, CALLBACK_PARAMETERS);
    const [sealed, ...others] = cookieValues(headerValues(event, 'cookie'), SIGN_IN_COOKIE_NAME);
    const pending =
      sealed === undefined || others.length > 0
        ? undefined
        : openPendingSignIn(sealed, await pendingKey(), clock());
    if (!pending) {
      throw new ApiError(
        'sign_in_not_started',
        "No sign-in was started in this browser in the last 10 minutes: start it again from the console's sign-in page.",
        { 'Set-Cookie': clearedSignInCookie() },
      );
    }
    const returned = new URL(callback.href);
    returned.search = new URLSearchParams(query).toString();
    const person = await identity.finish(returned.href, pending);
    const sessionCookies = await startPersonSession(person, signInRequestOf(event));
    return redirect(303, pending.returnTo, [...sessionCookies, clearedSignInCookie()]);
  });
  return (path) => {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    if (trimmed === SIGN_IN_START_PATH) return start;
    if (trimmed === SIGN_IN_CALLBACK_PATH) return finish;
    return undefined;
  };
}

/**
 * A signed-in person's console session, in their first project (t26-members' sessions), as the
 * `Set-Cookie` of the callback's answer; a person of no project is refused. The sign-in, and a
 * refusal in a project (too many sessions), are recorded in that project's audit log.
 */
export function personSessionStarter(
  sessions: Pick<ConsoleSessions, 'startForPerson'>,
  auditLog: AuditLog,
  clock: () => number,
): ConsoleSignInDependencies['startPersonSession'] {
  return async (person, request = {}) => {
    const started = await sessions.startForPerson(person);
    const actor = {
      kind: 'person',
      person: { issuer: person.issuer, subject: person.subject, email: person.email },
    } as const;
    if (started.signedIn) {
      await recordSignIn(auditLog, clock, { project: started.session.project, actor, request });
      return [sessionCookie(started.secret, SESSION_MAX_LIFETIME_MS / 1000)];
    }
    if (started.failure === 'too_many_sessions') {
      const code = 'too_many_sessions';
      if (started.project !== undefined) {
        const refusal = { code, status: CONSOLE_ERROR_CATALOGUE[code].status };
        await recordSignIn(auditLog, clock, { project: started.project, actor, refusal, request });
      }
      throw new ApiError(
        code,
        `Your project has ${MAX_LIVE_SESSIONS_PER_PROJECT} live console sessions, the most it may have: sign out in another browser, or wait for an idle one to end.`,
      );
    }
    throw new ApiError(
      'no_project_membership',
      `You signed in as ${person.email}, who is not a member of any project: ask an owner of your project to add you.`,
    );
  };
}
