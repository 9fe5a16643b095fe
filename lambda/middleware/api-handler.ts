import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { principalOf } from '../api/principal';
import { readQuery } from '../api/query';
import { CATCH_ALL, type HandlerName, type OperationId, routeFor } from '../api/routes';
import type { RateLimiter } from '../core/rate-limiter';
import { log } from '../shared/observability';
import { authenticate } from './authenticate';
import { cors } from './cors';
import { deprecated, sunset } from './deprecation';
import { errorResponses } from './error-responses';
import { jsonBody } from './json-body';
import { rateLimit } from './rate-limit';
import { requestLog } from './request-log';

export type ApiLambdaHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** The event an operation's handler receives: the proxy event with its query read and its body validated. */
export interface ApiEvent<Body = undefined> extends APIGatewayProxyEvent {
  /** The query parameters, each given once and known to the operation. */
  query: Record<string, string>;
  /** The parsed, schema-valid JSON body (operations whose route declares a request body only). */
  jsonBody: Body;
  /** The caller's project (operations that require a key only; empty on public ones). */
  project: string;
}

/** What every operation's stack is given by its function's composition place. */
export interface OperationDependencies {
  /** Counts every request (one per process, shared by the operations it serves). */
  readonly limiter: RateLimiter;
  /** Milliseconds since the epoch (sunsets). */
  readonly clock: () => number;
}

type Stack = middy.MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult>;

/**
 * What every function that answers requests runs first: the request log and the CORS
 * headers, then (after any deprecation middleware the caller adds) the rate limiter and
 * the Error bodies.
 */
function loggedStack(name: HandlerName): Stack {
  const stack = middy<APIGatewayProxyEvent, APIGatewayProxyResult>();
  // First in, so that its after/onError run last and log the final response. The event is
  // never logged (it holds the Authorization header), whatever POWERTOOLS_LOGGER_LOG_EVENT says.
  return stack
    .use(injectLambdaContext(log(), { resetKeys: true, logEvent: false }))
    .use(requestLog(name))
    .use(cors());
}

/**
 * The middleware stack every operation shares, configured by the operation's route
 * (deprecation, public access, query parameters, request body). `before` runs top down; `after`
 * and `onError` bottom up, so an error becomes an Error body first, then gets the
 * rate-limit headers (or turns into a 429), then the deprecation headers.
 */
export function apiHandler<Body = undefined>(
  operationId: OperationId,
  handle: (event: ApiEvent<Body>) => Promise<APIGatewayProxyResult>,
  { limiter, clock }: OperationDependencies,
): ApiLambdaHandler {
  const route = routeFor(operationId);
  const stack = loggedStack(operationId);
  if (route.deprecation) stack.use(deprecated(route.deprecation));
  // Reads count beside the operation; a write must know it is admitted before it writes.
  stack.use(rateLimit(limiter, { countBeforeHandler: route.method !== 'GET', operation: operationId }));
  stack.use(errorResponses());
  if (route.deprecation) stack.use(sunset(route.deprecation, clock));
  // A public route answers without a key; its callers are still counted (per client IP without one).
  stack.use(authenticate({ required: !route.public }));
  stack.use({
    before: async (request) => {
      const event = request.event as ApiEvent<Body>;
      event.query = readQuery(request.event, route.queryParameters);
      const principal = principalOf(request.event);
      event.project = principal.authenticated ? principal.project : '';
    },
  });
  if (route.requestBody) stack.use(jsonBody(route.requestBody.schema));
  return stack.handler((event) => handle(event as ApiEvent<Body>)) as ApiLambdaHandler;
}

/**
 * The catch-all's stack: logged and counted like an operation (a valid key against its
 * plan, anyone else per client IP, so every preflight too), and every refusal an Error body
 * with the rate-limit headers. No key is required: a path that does not exist is 404 for
 * everyone, and a preflight carries none.
 */
export function catchAllHandler(
  handle: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>,
  { limiter }: Pick<OperationDependencies, 'limiter'>,
): ApiLambdaHandler {
  const stack = loggedStack(CATCH_ALL.name);
  // Nothing is written: the count may run beside the (instant) answer.
  stack.use(rateLimit(limiter, { countBeforeHandler: false, operation: CATCH_ALL.name }));
  stack.use(errorResponses());
  stack.use(authenticate({ required: false }));
  return stack.handler(handle) as ApiLambdaHandler;
}
