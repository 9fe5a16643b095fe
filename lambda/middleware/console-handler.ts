import { createHash } from 'node:crypto';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type ConsoleRoute } from '../api/console-routes';
import { clearedSessionCookie, CSRF_HEADER, sessionCookieValues } from '../api/console-cookies';
import { ApiError } from '../api/errors';
import { headerValue, headerValues } from '../api/http';
import { readQuery } from '../api/query';
import { authenticateConsole, type ConsoleAccess, type ConsoleAccessFailure } from '../core/console-access';
import { type ConsoleSessionRecord, type ConsoleSessions, csrfTokenMatches } from '../core/console-session';
import {
  ORIGIN_SECRET_HEADER,
  originSecretMatches,
  parseViewerAddress,
  VIEWER_ADDRESS_HEADER,
} from '../core/edge-request';
import { may, type Role } from '../core/permissions';
import type { PersonalTokens } from '../core/personal-tokens';
import { type ProjectRecord, type ProjectStore, projectLimits } from '../core/project';
import type { RateLimiter } from '../core/rate-limiter';
import { ANONYMOUS_LIMITS } from '../core/plans';
import { log, logError } from '../shared/observability';
import type { ApiLambdaHandler } from './api-handler';
import { errorResponses } from './error-responses';
import { jsonBody } from './json-body';
import { anonymousCallerAt, callerOf, type CountedCaller, rateLimit } from './rate-limit';
import { type LoggedCaller, type LoggedOperation, requestLog } from './request-log';

/** The session a request came with (cookie requests only). */
export interface RequestSession {
  readonly record: ConsoleSessionRecord;
  /** The cookie's secret: never logged, never answered. */
  readonly secret: string;
}

/**
 * The event a console operation receives: the caller's project (none on the sign-in route, which
 * nobody is signed in to), its session when it came with the cookie, its query read and its
 * body validated.
 */
export interface ConsoleEvent<Body = unknown> extends APIGatewayProxyEvent {
  readonly project: ProjectRecord;
  /** The caller's role in the project (a console token's: `owner`). */
  readonly role: Role;
  readonly session?: RequestSession;
  /** The personal access token the request came with, and its member (tools' requests, issue 28). */
  readonly personalToken?: Extract<ConsoleAccess, { via: 'personal-token' }>;
  query: Record<string, string>;
  jsonBody: Body;
}

/**
 * The event of a route that a person's session takes with or without a project (the session's
 * own routes, `access: 'session'`, and the self-service start): no project nor role for a person
 * who has none yet (issue 27).
 */
export interface SessionEvent<Body = unknown> extends Omit<ConsoleEvent<Body>, 'project' | 'role'> {
  readonly project?: ProjectRecord;
  readonly role?: Role;
}

/** What every console stack is given by its composition place. */
export interface ConsoleStackDependencies {
  /** The projects (console tokens are checked against their hashes). */
  readonly projects: ProjectStore;
  /** The limiter the API shares: a caller without a valid token is counted per client IP with anonymous API calls. */
  readonly limiter: RateLimiter;
  /** Sign-in, sessions of cookies, sign-out. */
  readonly sessions: ConsoleSessions;
  /** Members' personal access tokens (issue 28); without them a `pat_` bearer is refused. */
  readonly personalTokens?: Pick<PersonalTokens, 'authenticate'>;
  /**
   * The console page's origins (`https://console.<platform domain>`; local mode's
   * `http://localhost:<port>` and `http://127.0.0.1:<port>`): a sign-in, and every change made
   * with the session cookie, must carry one of them exactly as its `Origin`.
   */
  readonly consoleOrigins: readonly string[];
  /**
   * The edge's origin secret values (current, previous), where a CloudFront distribution fronts
   * the console: a request carrying one is counted by its viewer (`CloudFront-Viewer-Address`),
   * not by the edge address many viewers share. None: every request is counted by its source.
   */
  readonly originSecrets?: () => Promise<readonly string[]>;
}

/**
 * What a console stack reads of its route: a route of the console's table, or one of local
 * mode's own (the sandbox DNS's records), which take the same credentials and checks.
 */
export interface ConsoleStackRoute extends Pick<
  ConsoleRoute,
  'method' | 'access' | 'queryParameters' | 'requestBody' | 'action'
> {
  readonly operationId: LoggedOperation;
}

/** The name of the console's unmatched paths in the request log and metrics. */
export const CONSOLE_UNMATCHED = 'consoleUnmatched' satisfies LoggedOperation;

const ACCESS = Symbol('console access');
const VIEWER = Symbol('viewer address');

type Accessed = APIGatewayProxyEvent & { [ACCESS]?: ConsoleAccess; [VIEWER]?: string };

/**
 * Who a request was found to be, once the console's stack has run on it (the audit log's actor,
 * lambda/operations/console-audit.ts); undefined before, or for a route nobody signs in to.
 */
export function consoleAccessOf(event: APIGatewayProxyEvent): ConsoleAccess | undefined {
  return (event as Accessed)[ACCESS];
}

/** The client's address: the viewer's through the edge, else the request's source. */
export function clientAddressOf(event: APIGatewayProxyEvent): string | undefined {
  return (event as Accessed)[VIEWER] ?? event.requestContext?.identity?.sourceIp ?? undefined;
}

/** The viewer's address, when the request proves it came through the edge; else undefined. */
export async function edgeViewerOf(
  event: APIGatewayProxyEvent,
  originSecrets: ConsoleStackDependencies['originSecrets'],
): Promise<string | undefined> {
  const presented = headerValue(event.headers ?? {}, ORIGIN_SECRET_HEADER);
  if (!originSecrets || presented === undefined) return undefined;
  try {
    if (!originSecretMatches(presented, await originSecrets())) return undefined;
  } catch (error) {
    // Unread, the secret proves nothing: the request is counted by its source, as any other.
    logError('origin secret unavailable', error);
    return undefined;
  }
  return parseViewerAddress(headerValue(event.headers ?? {}, VIEWER_ADDRESS_HEADER) ?? '');
}

/** Methods that change state: with the cookie, they need the console's Origin and the CSRF token. */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A project's console is counted apart from its API calls (against its plan's numbers), so an
 * API at its limit never locks its owner out of the dashboard; anyone else per client IP
 * (sign-ins included, so guessing tokens meets the anonymous allowance).
 */
function consoleCallerOf(event: APIGatewayProxyEvent): CountedCaller {
  const access = (event as Accessed)[ACCESS];
  if (!access?.granted) {
    const viewer = (event as Accessed)[VIEWER];
    return viewer === undefined ? callerOf(event) : anonymousCallerAt(viewer);
  }
  if (access.via === 'person-without-project') {
    // Not a project's yet: counted per person, against the anonymous allowance.
    const person = access.session.person;
    const key = person ? `${person.issuer}#${person.subject}` : access.session.sessionHash;
    return {
      identity: `console-person:${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}`,
      limits: ANONYMOUS_LIMITS,
      caller: 'a person with no project yet',
    };
  }
  const { project } = access;
  return {
    identity: `console:${project.name}`,
    limits: projectLimits(project),
    caller: `the console of project ${project.name} (${project.plan} plan)`,
  };
}

/** A console request's caller in the request log: its project and plan once found, else anonymous. */
function consoleLoggedCaller(event: APIGatewayProxyEvent): LoggedCaller {
  const access = (event as Accessed)[ACCESS];
  return access?.granted && access.via !== 'person-without-project'
    ? { plan: access.project.plan, project: access.project.name }
    : { plan: 'anonymous' };
}

const SIGN_IN_AGAIN = { 'Set-Cookie': clearedSessionCookie() };

const REFUSALS: Record<ConsoleAccessFailure, () => ApiError> = {
  not_signed_in: () =>
    new ApiError(
      'not_signed_in',
      "Not signed in: sign in with the project's console token, or send it as `Authorization: Bearer <console token>`.",
      { 'WWW-Authenticate': 'Bearer realm="animal-store-console"' },
    ),
  invalid_console_token: () =>
    new ApiError('invalid_console_token', 'The console token is not valid.', {
      'WWW-Authenticate': 'Bearer realm="animal-store-console", error="invalid_token"',
    }),
  session_ended: () => new ApiError('session_ended', 'Your session has ended. Sign in again.', SIGN_IN_AGAIN),
  console_token_retired: () =>
    new ApiError(
      'console_token_retired',
      'The project has owners now, so its console token no longer opens its console: sign in as a member.',
      { ...SIGN_IN_AGAIN, 'WWW-Authenticate': 'Bearer realm="animal-store-console", error="invalid_token"' },
    ),
  membership_ended: () =>
    new ApiError(
      'membership_ended',
      'You are no longer a member of this project: sign in again to reach your other projects.',
      SIGN_IN_AGAIN,
    ),
  invalid_personal_token: () =>
    new ApiError('invalid_personal_token', 'The personal access token is not valid.', {
      'WWW-Authenticate': 'Bearer realm="animal-store-console", error="invalid_token"',
    }),
  personal_token_expired: () =>
    new ApiError(
      'personal_token_expired',
      'The personal access token has expired: create a new one in the console (Tokens).',
      { 'WWW-Authenticate': 'Bearer realm="animal-store-console", error="invalid_token"' },
    ),
  personal_token_revoked: () =>
    new ApiError(
      'personal_token_revoked',
      'The personal access token was revoked: create a new one in the console (Tokens).',
      { 'WWW-Authenticate': 'Bearer realm="animal-store-console", error="invalid_token"' },
    ),
  store_unavailable: () =>
    new ApiError(
      'service_unavailable',
      'The sign-in could not be checked because the data store is unavailable; retry after the Retry-After delay.',
      { 'Retry-After': '1' },
    ),
};

/** A person's session of no project, at a route of a project's. */
function noProjectYet(): ApiError {
  return new ApiError(
    'no_project_yet',
    "You are not a member of any project yet: create one on the console's start page, or accept an invitation to one.",
  );
}

/** The one `Origin` of a request when it is the console's; undefined otherwise (none, several, another). */
function consoleOriginOf(event: APIGatewayProxyEvent, consoleOrigins: readonly string[]): string | undefined {
  const origins = headerValues(event, 'origin');
  const [origin] = origins;
  return origins.length === 1 && origin !== undefined && consoleOrigins.includes(origin) ? origin : undefined;
}

function refuseOrigin(): ApiError {
  return new ApiError(
    'csrf_origin_refused',
    "Refused: the request does not come from the console's own page (its Origin header is missing or another site's).",
  );
}

/**
 * The cross-site request forgery checks of a change made with the session cookie: the exact
 * console origin, and the session's CSRF token (compared in constant time). A bearer token is
 * never sent by a browser on its own, so tools need neither.
 */
function checkCsrf(
  event: APIGatewayProxyEvent,
  session: RequestSession,
  consoleOrigins: readonly string[],
): void {
  if (!consoleOriginOf(event, consoleOrigins)) throw refuseOrigin();
  const tokens = headerValues(event, CSRF_HEADER);
  if (tokens.length !== 1 || !csrfTokenMatches(session.secret, tokens[0])) {
    throw new ApiError(
      'csrf_token_invalid',
      `Refused: a change made with the session needs its CSRF token in the ${CSRF_HEADER} header; reload the console and retry.`,
    );
  }
}

/** Every console answer is private to its caller and current: never stored by a browser or a cache. */
function noStore(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const mark = async (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>) => {
    if (request.response)
      request.response.headers = { ...request.response.headers, 'Cache-Control': 'no-store' };
  };
  return { after: mark, onError: mark };
}

/**
 * The console's stack for one route (or none: unknown paths and methods): the caller is found
 * first (console token, or session cookie), so the limiter counts it as its project or, signed
 * out, per client IP; then the cross-site checks; every refusal, 401 included, is an Error body
 * with the rate-limit headers. Writes wait for the count, as in the API. Each request is logged
 * and measured like an API call, under its operation id.
 */
export function consoleHandler<Body = unknown>(
  route: ConsoleStackRoute | undefined,
  handle: (event: ConsoleEvent<Body>) => Promise<APIGatewayProxyResult>,
  { projects, limiter, sessions, personalTokens, consoleOrigins, originSecrets }: ConsoleStackDependencies,
): ApiLambdaHandler {
  const access = route?.access ?? 'signed-in';
  const name: LoggedOperation = route?.operationId ?? CONSOLE_UNMATCHED;
  const stack = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    // The event is never logged: it holds the console token or the session cookie.
    .use(injectLambdaContext(log(), { resetKeys: true, logEvent: false }))
    .use(requestLog(name, consoleLoggedCaller))
    .use(noStore())
    .use({
      before: async (request) => {
        const event = request.event;
        (event as Accessed)[VIEWER] = await edgeViewerOf(event, originSecrets);
        (event as Accessed)[ACCESS] =
          access === 'sign-in'
            ? { granted: false, failure: 'not_signed_in' }
            : await authenticateConsole(
                {
                  authorization: access === 'session' ? [] : headerValues(event, 'authorization'),
                  sessionCookies: sessionCookieValues(headerValues(event, 'cookie')),
                },
                projects,
                sessions,
                personalTokens,
              );
      },
    })
    .use(rateLimit(limiter, { countBeforeHandler: route?.method !== 'GET', identify: consoleCallerOf }))
    .use(errorResponses())
    .use({
      before: async (request) => {
        const event = request.event as ConsoleEvent<Body>;
        if (access === 'sign-in') {
          if (!consoleOriginOf(event, consoleOrigins)) throw refuseOrigin();
        } else {
          const granted = (request.event as Accessed)[ACCESS];
          if (!granted?.granted) throw REFUSALS[granted?.failure ?? 'not_signed_in']();
          if (granted.via === 'person-without-project') {
            if (access !== 'session') throw noProjectYet();
            const session = { record: granted.session, secret: granted.sessionSecret };
            (event as { session?: RequestSession }).session = session;
            log().appendKeys({ consoleAccess: granted.via });
            if (route && STATE_CHANGING.has(route.method)) checkCsrf(event, session, consoleOrigins);
            event.query = route ? readQuery(request.event, route.queryParameters) : {};
            return;
          }
          (event as { project: ProjectRecord }).project = granted.project;
          (event as { role: Role }).role = granted.role;
          log().appendKeys({ consoleAccess: granted.via, role: granted.role });
          if (granted.via === 'session') {
            const session = { record: granted.session, secret: granted.sessionSecret };
            (event as { session?: RequestSession }).session = session;
            if (route && STATE_CHANGING.has(route.method)) checkCsrf(event, session, consoleOrigins);
          }
          if (granted.via === 'personal-token') {
            (event as { personalToken?: typeof granted }).personalToken = granted;
            log().appendKeys({ personalToken: granted.token.id });
          }
        }
        // The permission table, after the cross-site checks: a forged request learns nothing of roles.
        if (route?.action && !may(event.role, route.action)) {
          throw new ApiError(
            'action_not_permitted',
            `Your role in project ${event.project.name}, ${event.role}, may not do this (${route.action}).`,
          );
        }
        event.query = route ? readQuery(request.event, route.queryParameters) : {};
      },
    });
  if (route?.requestBody) stack.use(jsonBody(route.requestBody));
  return stack.handler((event) => handle(event as ConsoleEvent<Body>)) as ApiLambdaHandler;
}
