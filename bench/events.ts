import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { API_VERSION_PREFIX, ROUTES, type Route } from '../lambda/api/routes';
import { authorizerEvent, proxyEvent } from '../test/support/events';

/** The Enterprise agreement whose keys the bench uses, so that the limiter admits every request. */
export const BENCH_PLAN = 'enterprise:example-corp';

/** A key the bench has issued: the bearer string and its public id. */
export interface BenchKey {
  readonly apiKey: string;
  readonly keyId: string;
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

function routeEvent(route: Route, key: BenchKey, petId: number): APIGatewayProxyEvent {
  const resource = `${API_VERSION_PREFIX}${route.path}`;
  return proxyEvent({
    principal: { authenticated: true, keyId: key.keyId, plan: BENCH_PLAN },
    resource,
    path: resource,
    httpMethod: route.method,
    headers: HEADERS,
    ...REQUESTS[route.operationId]?.(petId),
  });
}

/**
 * The event API Gateway sends each function, by bundle name: one authenticated
 * Enterprise caller; the baseline gets getPet's.
 */
export function functionEvents(
  key: BenchKey,
  petId: number,
): Record<string, APIGatewayProxyEvent | APIGatewayRequestAuthorizerEvent> {
  const events: Record<string, APIGatewayProxyEvent | APIGatewayRequestAuthorizerEvent> = {};
  for (const route of ROUTES) events[route.operationId] = routeEvent(route, key, petId);
  events.authorizer = authorizerEvent({ Authorization: `Bearer ${key.apiKey}` });
  events.baseline = events.getPet ?? routeEvent(ROUTES[0] as Route, key, petId);
  return events;
}
