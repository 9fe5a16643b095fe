import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { API_VERSION_PREFIX, CATCH_ALL, ROUTES, type Route, routeFor } from '../lambda/api/routes';
import type { Principal } from '../lambda/core/authentication';
import { PLANS } from '../lambda/core/plans';
import { authorizerEvent, proxyEvent } from '../test/support/events';

/**
 * The plan of the bench's projects and the numbers agreed on it: Enterprise at its ceiling,
 * so that the limiter admits every request the bench sends.
 */
export const BENCH_PLAN = { plan: 'enterprise', limits: PLANS.enterprise.ceiling } as const;

/** A key the bench has issued: the bearer string, its public id and its project. */
export interface BenchKey {
  readonly apiKey: string;
  readonly keyId: string;
  readonly project: string;
}

/** An event for a function, and the status its answer must have for the request to have run. */
export interface FunctionEvent {
  readonly event: APIGatewayProxyEvent | APIGatewayRequestAuthorizerEvent;
  readonly status: number;
}

const HEADERS = { Host: 'abc123.execute-api.us-east-1.amazonaws.com', 'X-Forwarded-Proto': 'https' };

/** What a realistic request to each operation carries; a new operation gets a bare request to its path. */
const REQUESTS: Record<string, (petId: number) => Partial<APIGatewayProxyEvent>> = {
  listPets: () => ({
    queryStringParameters: { limit: '20' },
    multiValueQueryStringParameters: { limit: ['20'] },
  }),
  createPet: () => ({
    headers: { ...HEADERS, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available' }),
  }),
  getPet: (petId) => ({
    path: `${API_VERSION_PREFIX}/pets/${petId}`,
    pathParameters: { petId: String(petId) },
  }),
};

const principalOf = (key: BenchKey): Principal => ({
  authenticated: true,
  keyId: key.keyId,
  project: key.project,
  plan: BENCH_PLAN.plan,
  limits: BENCH_PLAN.limits,
});

function routeEvent(route: Route, key: BenchKey, petId: number): APIGatewayProxyEvent {
  const resource = `${API_VERSION_PREFIX}${route.path}`;
  return proxyEvent({
    principal: principalOf(key),
    resource,
    path: resource,
    httpMethod: route.method,
    headers: HEADERS,
    ...REQUESTS[route.operationId]?.(petId),
  });
}

/**
 * What the catch-all gets for a scanner's probe of a path no route has: API Gateway's
 * greedy resource, answered 404. The caller is the bench's key, so that the warm repeats
 * stay within its allowance (an anonymous caller's 20 a minute would turn them into 429s);
 * the work is the same either way: one limiter write beside the answer.
 */
function catchAllEvent(key: BenchKey): APIGatewayProxyEvent {
  const probe = 'wp-login.php';
  return proxyEvent({
    principal: principalOf(key),
    resource: `${API_VERSION_PREFIX}${CATCH_ALL.proxyPath}`,
    path: `${API_VERSION_PREFIX}/${probe}`,
    httpMethod: 'GET',
    headers: HEADERS,
    pathParameters: { proxy: probe },
  });
}

/** The status each operation answers a valid request with. */
const SUCCESS: Record<string, number> = { createPet: 201 };

/**
 * The event API Gateway sends each function, by bundle name, with the status of its answer:
 * one authenticated Enterprise caller; the catch-all a probe (404); the baseline getPet's.
 * The harness reports an authorizer's answer as 200 when it found the key and its project.
 */
export function functionEvents(key: BenchKey, petId: number): Record<string, FunctionEvent> {
  const events: Record<string, FunctionEvent> = {};
  for (const route of ROUTES) {
    events[route.operationId] = {
      event: routeEvent(route, key, petId),
      status: SUCCESS[route.operationId] ?? 200,
    };
  }
  events[CATCH_ALL.name] = { event: catchAllEvent(key), status: 404 };
  events.authorizer = { event: authorizerEvent({ Authorization: `Bearer ${key.apiKey}` }), status: 200 };
  events.baseline = { event: routeEvent(routeFor('getPet'), key, petId), status: 200 };
  return events;
}
