import type { APIGatewayProxyResult } from 'aws-lambda';
import { ANONYMOUS_LIMITS, PLANS, PREFLIGHT_LIMITS } from '../../../lambda/core/plans';
import type { Principal } from '../../../lambda/api/principal';
import { API_VERSION_PREFIX, CATCH_ALL, catchAllPaths, methodsByPath } from '../../../lambda/api/routes';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';
import { clockInADayOfItsOwn } from '../../support/fake-clock';
import type { ApiLambdaHandler as ProxyHandler } from '../../../lambda/middleware/api-handler';

let store: TestStore;
let handler: ProxyHandler;
/** Each test counts in a UTC day of its own, so no two share a rate-limit window. */
clockInADayOfItsOwn(Date.UTC(2028, 0, 1));

beforeAll(async () => {
  store = await startTestStore();
  process.env.DYNAMODB_ENDPOINT = store.store.endpoint;
  process.env.RATE_LIMITS_TABLE_NAME = LOCAL_TABLE_NAMES.rateLimits;
  // Loaded here, not isolated, so that it reads the clock the test moves.
  handler = (require(`../../../lambda/handlers/${CATCH_ALL.handlerModule}`) as { handler: ProxyHandler })
    .handler;
});
afterAll(() => store.close());

const anonymous: Principal = { authenticated: false, failure: 'missing_api_key' };
const pro: Principal = {
  authenticated: true,
  keyId: 'catchalltests000',
  project: 'catchall',
  plan: 'pro',
  limits: PLANS.pro.limits,
};

/** A request API Gateway routed to the catch-all's ANY method on `resource`. */
function call(
  resource: string,
  path: string,
  {
    method = 'GET',
    principal = anonymous,
    ip = '198.51.100.7',
    headers = {},
    corsOrigin,
  }: {
    method?: string;
    principal?: Principal;
    ip?: string;
    headers?: Record<string, string>;
    /** What the authorizer passed on: the request's origin, allowed by the address's project. */
    corsOrigin?: string;
  } = {},
) {
  const event = proxyEvent({ resource, path, httpMethod: method, principal });
  event.headers = { ...event.headers, ...headers };
  event.multiValueHeaders = Object.fromEntries(Object.entries(event.headers).map(([n, v]) => [n, [v ?? '']]));
  (event.requestContext.identity as { sourceIp: string }).sourceIp = ip;
  if (corsOrigin) (event.requestContext.authorizer as Record<string, string>).corsOrigin = corsOrigin;
  return handler(event, lambdaContext);
}

const APP = 'https://app.example.com';
const preflight = (method: string, origin = APP) => ({
  method: 'OPTIONS',
  headers: { Origin: origin, 'Access-Control-Request-Method': method },
});
const accessControl = (result: APIGatewayProxyResult) =>
  Object.keys(result.headers ?? {}).filter((name) => name.toLowerCase().startsWith('access-control-'));

function errorOf(result: APIGatewayProxyResult) {
  return JSON.parse(result.body) as { code: string; message: string; status: number };
}

describe('catch-all handler', () => {
  it('answers 404 not_found for the greedy proxy and for the prefix itself, with the rate-limit headers', async () => {
    for (const [resource, path] of [
      [`${API_VERSION_PREFIX}${CATCH_ALL.proxyPath}`, '/v1/wp-login.php'],
      [API_VERSION_PREFIX, '/v1'],
    ] as const) {
      const result = await call(resource, path);
      expect(result.statusCode).toBe(404);
      expect(errorOf(result)).toEqual({
        code: 'not_found',
        message: expect.stringContaining('/v1/openapi.json'),
        status: 404,
      });
      expect(result.headers?.['Content-Type']).toMatch(/^application\/json/);
      expect(result.headers?.['X-RateLimit-Limit']).toBe(String(ANONYMOUS_LIMITS.perMinute));
      expect(result.headers?.Allow).toBeUndefined();
    }
  });

  it.each([...methodsByPath()])('answers 405 on %s with Allow: its methods', async (path, methods) => {
    const result = await call(`${API_VERSION_PREFIX}${path}`, `${API_VERSION_PREFIX}${path}`, {
      method: 'DELETE',
    });
    expect(result.statusCode).toBe(405);
    expect(errorOf(result)).toMatchObject({ code: 'method_not_allowed', status: 405 });
    expect(errorOf(result).message).toContain(methods.join(', '));
    expect(result.headers?.Allow).toBe(methods.join(', '));
    expect(result.headers?.['X-RateLimit-Remaining']).toBeDefined();
  });

  it.each([...methodsByPath()])(
    'answers a plain OPTIONS on %s with 204 and Allow, counted',
    async (path, methods) => {
      const result = await call(`${API_VERSION_PREFIX}${path}`, `${API_VERSION_PREFIX}${path}`, {
        method: 'OPTIONS',
      });
      expect([result.statusCode, result.headers?.Allow, result.body]).toEqual([204, methods.join(', '), '']);
      expect(result.headers?.['X-RateLimit-Remaining']).toBeDefined();
      expect(accessControl(result)).toEqual([]);
    },
  );

  it('answers a preflight from the allowed origin for a method of the path with 204 and the CORS headers', async () => {
    const result = await call('/v1/pets', '/v1/pets', { ...preflight('POST'), corsOrigin: APP });
    expect(result.statusCode).toBe(204);
    expect(result.headers).toMatchObject({
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Methods': 'GET, POST',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key',
      'Access-Control-Max-Age': '7200',
      Vary: 'Origin',
    });
    expect(result.headers).not.toHaveProperty('Access-Control-Allow-Credentials');
    // Counted per client on the preflight allowance, and says so.
    expect(result.headers?.['X-RateLimit-Limit']).toBe(String(PREFLIGHT_LIMITS.perMinute));
  });

  it.each([
    [
      'an origin the project does not allow',
      preflight('GET', 'https://evil.example'),
      undefined,
      /Origin https:\/\/evil\.example may not call/,
    ],
    [
      'a method the path lacks',
      preflight('DELETE'),
      APP,
      /Method DELETE is not allowed on this path: it accepts GET, POST\./,
    ],
    [
      'an Origin other than the one the authorizer allowed',
      preflight('GET', 'https://evil.example'),
      APP,
      /may not call/,
    ],
    ['no allowed origin at all (the shared address)', preflight('GET'), undefined, /may not call/],
  ])(
    'refuses a preflight with %s: 403 cors_not_allowed without CORS headers',
    async (_, request, corsOrigin, message) => {
      const result = await call('/v1/pets', '/v1/pets', {
        ...request,
        ...(corsOrigin ? { corsOrigin } : {}),
      });
      expect([result.statusCode, errorOf(result)]).toEqual([
        403,
        { code: 'cors_not_allowed', message: expect.stringMatching(message), status: 403 },
      ]);
      expect(accessControl(result)).toEqual([]);
      expect(result.headers?.Vary).toBe('Origin');
    },
  );

  it('answers OPTIONS and preflights on an unknown path 404, as any method', async () => {
    for (const options of [{ method: 'OPTIONS' }, { ...preflight('GET'), corsOrigin: APP }]) {
      const result = await call('/v1/{proxy+}', '/v1/nothing', options);
      expect([result.statusCode, errorOf(result).code]).toEqual([404, 'not_found']);
      expect(accessControl(result)).toEqual([]);
    }
  });

  it('puts the CORS headers on its 404 and 405 for the allowed origin, and on nothing else', async () => {
    const allowed = await call('/v1/pets', '/v1/pets', {
      method: 'PUT',
      headers: { Origin: APP },
      corsOrigin: APP,
    });
    expect(allowed.statusCode).toBe(405);
    expect(allowed.headers).toMatchObject({
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Expose-Headers': expect.stringContaining('X-RateLimit-Remaining'),
      Vary: 'Origin',
    });
    const other = await call('/v1/{proxy+}', '/v1/x', { headers: { Origin: 'https://evil.example' } });
    expect([other.statusCode, accessControl(other)]).toEqual([404, []]);
  });

  it('every catch-all path answers 404 or 405, never anything else', async () => {
    for (const path of catchAllPaths()) {
      const result = await call(`${API_VERSION_PREFIX}${path}`, `${API_VERSION_PREFIX}/x`, {
        method: 'PATCH',
      });
      expect([404, 405]).toContain(result.statusCode);
    }
  });

  it('counts a valid key against its plan', async () => {
    const first = await call('/v1/{proxy+}', '/v1/nope', { principal: pro });
    const second = await call('/v1/pets', '/v1/pets', { principal: pro, method: 'PUT' });
    expect(first.headers?.['X-RateLimit-Limit']).toBe(String(PLANS.pro.limits.perMinute));
    expect(first.headers?.['X-RateLimit-Remaining']).toBe(String(PLANS.pro.limits.perMinute - 1));
    expect(second.headers?.['X-RateLimit-Remaining']).toBe(String(PLANS.pro.limits.perMinute - 2));
  });

  it('counts anyone else per client IP, and refuses with 429 once the allowance is spent', async () => {
    for (let sent = 1; sent <= ANONYMOUS_LIMITS.perMinute; sent++) {
      const result = await call('/v1/{proxy+}', '/v1/.env');
      expect([result.statusCode, result.headers?.['X-RateLimit-Remaining']]).toEqual([
        404,
        String(ANONYMOUS_LIMITS.perMinute - sent),
      ]);
    }
    const refused = await call('/v1/{proxy+}', '/v1/.env');
    expect([refused.statusCode, errorOf(refused).code]).toEqual([429, 'rate_limited']);
    expect(refused.headers?.['Retry-After']).toBeDefined();
    // Another address has an allowance of its own.
    expect((await call('/v1/{proxy+}', '/v1/.env', { ip: '198.51.100.8' })).statusCode).toBe(404);
  });
});
