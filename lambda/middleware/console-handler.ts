import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ConsoleRoute } from '../api/console-routes';
import { ApiError } from '../api/errors';
import { headerValues } from '../api/http';
import { readQuery } from '../api/query';
import { authenticateConsole, type ConsoleAccess, type ConsoleAccessFailure } from '../domain/console-access';
import { type ProjectRecord, type ProjectStore, projectLimits } from '../domain/project';
import type { RateLimiter } from '../domain/rate-limiter';
import { log } from '../shared/observability';
import type { ApiLambdaHandler } from './api-handler';
import { errorResponses } from './error-responses';
import { jsonBody } from './json-body';
import { callerOf, type CountedCaller, rateLimit } from './rate-limit';

/** The event a console operation receives: the caller's project, its query read and its body validated. */
export interface ConsoleEvent<Body = unknown> extends APIGatewayProxyEvent {
  readonly project: ProjectRecord;
  query: Record<string, string>;
  jsonBody: Body;
}

/** What every console stack is given by its composition place. */
export interface ConsoleStackDependencies {
  /** The projects (console tokens are checked against their hashes). */
  readonly projects: ProjectStore;
  /** The limiter the API shares: a caller without a valid token is counted per client IP with anonymous API calls. */
  readonly limiter: RateLimiter;
}

const ACCESS = Symbol('console access');

type Accessed = APIGatewayProxyEvent & { [ACCESS]?: ConsoleAccess };

/**
 * A project's console is counted apart from its API calls (against its plan's numbers), so an
 * API at its limit never locks its owner out of the dashboard; anyone else per client IP.
 */
function consoleCallerOf(event: APIGatewayProxyEvent): CountedCaller {
  const access = (event as Accessed)[ACCESS];
  if (!access?.granted) return callerOf(event);
  const { project } = access;
  return {
    identity: `console:${project.name}`,
    limits: projectLimits(project),
    caller: `the console of project ${project.name} (${project.plan} plan)`,
  };
}

const REFUSALS: Record<ConsoleAccessFailure, () => ApiError> = {
  missing_console_token: () =>
    new ApiError(
      'missing_console_token',
      "Authentication required: send the project's console token as `Authorization: Bearer <console token>`.",
      { 'WWW-Authenticate': 'Bearer realm="animal-store-console"' },
    ),
  invalid_console_token: () =>
    new ApiError('invalid_console_token', 'The console token is not valid.', {
      'WWW-Authenticate': 'Bearer realm="animal-store-console", error="invalid_token"',
    }),
  store_unavailable: () =>
    new ApiError(
      'service_unavailable',
      'The console token could not be checked because the data store is unavailable; retry after the Retry-After delay.',
      { 'Retry-After': '1' },
    ),
};

/**
 * The console's stack for one route (or none: unknown paths and methods): the console token is
 * checked first, so the limiter counts the caller as its project or, without a valid token, per
 * client IP; every refusal, 401 included, is an Error body with the rate-limit headers. Writes
 * wait for the count, as in the API.
 */
export function consoleHandler<Body = unknown>(
  route: ConsoleRoute | undefined,
  handle: (event: ConsoleEvent<Body>) => Promise<APIGatewayProxyResult>,
  { projects, limiter }: ConsoleStackDependencies,
): ApiLambdaHandler {
  const stack = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    // The event is never logged: it holds the console token.
    .use(injectLambdaContext(log(), { resetKeys: true, logEvent: false }))
    .use({
      before: async (request) => {
        (request.event as Accessed)[ACCESS] = await authenticateConsole(
          headerValues(request.event, 'authorization'),
          projects,
        );
      },
    })
    .use(rateLimit(limiter, { countBeforeHandler: route?.method !== 'GET', identify: consoleCallerOf }))
    .use(errorResponses())
    .use({
      before: async (request) => {
        const access = (request.event as Accessed)[ACCESS];
        if (!access?.granted) throw REFUSALS[access?.failure ?? 'missing_console_token']();
        const event = request.event as ConsoleEvent<Body>;
        (event as { project: ProjectRecord }).project = access.project;
        event.query = route ? readQuery(request.event, route.queryParameters) : {};
      },
    });
  if (route?.requestBody) stack.use(jsonBody(route.requestBody));
  return stack.handler((event) => handle(event as ConsoleEvent<Body>)) as ApiLambdaHandler;
}
