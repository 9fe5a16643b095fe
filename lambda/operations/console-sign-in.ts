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
import {
  SIGN_IN_FAILED_PARAMETER,
  SIGN_IN_PROVIDER_PATH,
  SIGN_IN_REFUSAL_PARAMETER,
  SIGN_OUT_PATH,
} from '../api/console-navigation';
import { RETURN_TO_PARAMETER, SIGN_IN_CALLBACK_PATH, SIGN_IN_START_PATH } from '../api/console-routes';
import { CONSOLE_ERROR_CATALOGUE } from '../api/console-error-catalogue';
import { ApiError } from '../api/errors';
import { INVITATION_REFUSED_FRAGMENT } from '../api/console-invitation-routes';
import { clearedInvitationCookie, invitationCookieValue } from '../api/invitation-cookie';
import type { AuditLog } from '../core/audit';
import { headerValue, headerValues, jsonResponse } from '../api/http';
import { readQuery } from '../api/query';
import {
  type ConsoleSessions,
  MAX_LIVE_SESSIONS_PER_PROJECT,
  SESSION_MAX_LIFETIME_MS,
} from '../core/console-session';
import { type IdentityProvider, type Person, type SignInRefusal, SignInRefusedError } from '../core/identity';
import { InvitationRefusal } from '../core/invitations';
import {
  DEFAULT_RETURN_TO,
  openPendingSignIn,
  PENDING_SIGN_IN_TTL_MS,
  safeReturnTo,
  sealPendingSignIn,
} from '../core/pending-sign-in';
import type { RateLimiter } from '../core/rate-limiter';
import type { ApiLambdaHandler } from '../middleware/api-handler';
import { type ConsoleStackDependencies, edgeViewerOf } from '../middleware/console-handler';
import { errorResponses } from '../middleware/error-responses';
import { anonymousCallerAt, callerOf, rateLimit } from '../middleware/rate-limit';
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
   * Starts the person's console session (in `project`, else their first): the `Set-Cookie` values
   * of its answer. The request's address and user agent go to the audit log's entry of the sign-in.
   */
  readonly startPersonSession: (
    person: Person,
    request?: SignInRequest,
    project?: string,
  ) => Promise<readonly string[]>;
  /**
   * Accepts the invitation an opened link left in this browser (issue 27) for the person the
   * provider just vouched for: the project they joined. Throws {@link InvitationRefusal}.
   */
  readonly acceptInvitation?: (token: string, person: Person) => Promise<string>;
  readonly limiter: RateLimiter;
  /**
   * The edge's origin secret values, where the console's distribution fronts the function: a
   * request carrying one is counted by its viewer, not by the CloudFront address many share.
   */
  readonly originSecrets?: ConsoleStackDependencies['originSecrets'];
  /** Epoch milliseconds. */
  readonly clock: () => number;
}

const VIEWER = Symbol('viewer address');
type Viewed = APIGatewayProxyEvent & { [VIEWER]?: string };

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

const REFUSAL = Symbol('sign-in refusal');

type Marked = APIGatewayProxyEvent & { [REFUSAL]?: SignInRefusal };

/** A browser's top-level navigation (not a script's fetch, not a tool): it lands on a page, not on JSON. */
function isNavigation(event: APIGatewayProxyEvent): boolean {
  const mode = headerValue(event.headers ?? {}, 'sec-fetch-mode');
  if (mode !== undefined) return mode.trim().toLowerCase() === 'navigate';
  return (headerValue(event.headers ?? {}, 'accept') ?? '').toLowerCase().includes('text/html');
}

/**
 * A refused navigation goes to the console's page, which says what happened in its own words
 * and offers to sign in again; the answer's cookies (the sign-in's, cleared) go with it. Others
 * (tools, tests, scripts) keep the Error body.
 */
function landOnThePage(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      const { response, event } = request;
      if (!response || response.statusCode < 400 || !isNavigation(event)) return;
      // errorResponses, inside this middleware, has made every failure an Error body.
      const { code } = JSON.parse(response.body) as { code: string };
      const query = new URLSearchParams({ [SIGN_IN_FAILED_PARAMETER]: code });
      const refused = (event as Marked)[REFUSAL];
      if (refused) query.set(SIGN_IN_REFUSAL_PARAMETER, refused);
      const cookies = response.multiValueHeaders?.['Set-Cookie'] ?? [];
      const cleared = response.headers?.['Set-Cookie'];
      request.response = redirect(303, `${DEFAULT_RETURN_TO}?${query.toString()}`, [
        ...cookies.map(String),
        ...(cleared === undefined ? [] : [String(cleared)]),
      ]);
    },
  };
}

/** A refusal of the port, in the console's words; the pending sign-in's cookie goes with it. */
function refusal(error: unknown, event: APIGatewayProxyEvent): unknown {
  if (!(error instanceof SignInRefusedError)) return error;
  (event as Marked)[REFUSAL] = error.refusal;
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
  { limiter, originSecrets }: Pick<ConsoleSignInDependencies, 'limiter' | 'originSecrets'>,
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
    .use(landOnThePage())
    .use({
      before: async (request) => {
        (request.event as Viewed)[VIEWER] = await edgeViewerOf(request.event, originSecrets);
      },
    })
    .use(
      rateLimit(limiter, {
        countBeforeHandler: true,
        identify: (event) => {
          const viewer = (event as Viewed)[VIEWER];
          return viewer === undefined ? callerOf(event) : anonymousCallerAt(viewer);
        },
      }),
    )
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
        throw refusal(error, event);
      }
    }) as ApiLambdaHandler;
}

/** The sign-in's two handlers by path; `undefined` for any other path. */
export function consoleSignIn(
  dependencies: ConsoleSignInDependencies,
): (path: string) => ApiLambdaHandler | undefined {
  const { identity, pendingKey, callbackUrl, startPersonSession, acceptInvitation, clock } = dependencies;
  const movedHosts = dependencies.movedHosts ?? [];
  const callback = new URL(callbackUrl);
  const start = signInStack('signInStart', dependencies, async (event) => {
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
  const finish = signInStack('signInCallback', dependencies, async (event) => {
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
    // An invitation opened in this browser is accepted now, with the claims just vouched for.
    const invitation = invitationCookieValue(headerValues(event, 'cookie'));
    if (invitation !== undefined && acceptInvitation) {
      const cleared = [clearedSignInCookie(), clearedInvitationCookie()];
      let joined: string;
      try {
        joined = await acceptInvitation(invitation, person);
      } catch (error) {
        if (!(error instanceof InvitationRefusal)) throw error;
        log().info('invitation refused', { refusal: error.kind });
        return redirect(303, `${DEFAULT_RETURN_TO}#${INVITATION_REFUSED_FRAGMENT}=${error.kind}`, cleared);
      }
      return redirect(303, DEFAULT_RETURN_TO, [
        ...(await startPersonSession(person, signInRequestOf(event), joined)),
        ...cleared,
      ]);
    }
    const sessionCookies = await startPersonSession(person, signInRequestOf(event));
    return redirect(303, pending.returnTo, [...sessionCookies, clearedSignInCookie()]);
  });
  // The page asks before it offers the provider: this path exists only where one is set up.
  const provider = signInStack('signInProvider', dependencies, async () =>
    jsonResponse(200, { identityProvider: true }),
  );
  // Changes nothing (the page has ended its session first): it only leads on to the provider.
  const signOut = signInStack('signOut', dependencies, async () => {
    const page = `${callback.origin}${DEFAULT_RETURN_TO}`;
    let url: string | undefined;
    try {
      url = await identity.signOutUrl(page);
    } catch (error) {
      // The console's session is over already; the provider's can end another time.
      log().info('provider sign-out unavailable', { error: error instanceof Error ? error.message : '' });
    }
    return url === undefined ? redirect(303, DEFAULT_RETURN_TO) : redirect(302, url);
  });
  return (path) => {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    if (trimmed === SIGN_IN_START_PATH) return start;
    if (trimmed === SIGN_IN_CALLBACK_PATH) return finish;
    if (trimmed === SIGN_IN_PROVIDER_PATH) return provider;
    if (trimmed === SIGN_OUT_PATH) return signOut;
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
  return async (person, request = {}, project) => {
    const started = await sessions.startForPerson(person, project);
    const actor = {
      kind: 'person',
      person: { issuer: person.issuer, subject: person.subject, email: person.email },
    } as const;
    if (started.signedIn) {
      // A person with no project yet signs in to none: there is no project's log to write to.
      if (started.session.project !== undefined) {
        // A session started in a named project is an invitation's, just accepted (issue 27).
        if (project !== undefined)
          await recordSignIn(auditLog, clock, { project, actor, request, action: 'invitation.accept' });
        await recordSignIn(auditLog, clock, { project: started.session.project, actor, request });
      }
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
