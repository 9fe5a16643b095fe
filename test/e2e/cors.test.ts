import { CORS_EXPOSED_HEADERS } from '../../lambda/api/cors';
import type { Pet } from '../../lambda/core/pet';
import { ANONYMOUS_LIMITS, PLANS, PREFLIGHT_LIMITS } from '../../lambda/core/plans';
import { clockInADayOfItsOwn } from '../support/fake-clock';
import { checkRawResponse, rawRequest, type RawResponse } from '../support/raw-http';
import { expectError, startTestApi, type TestApi } from '../support/test-api';

/**
 * CORS end to end, over HTTP against local mode: preflights answered by the catch-all, the
 * headers on every response to an allowed origin (errors made by the middleware included),
 * and one project's origins never applying on another project's address.
 */

let t: TestApi;
let origin: string;
/** Each test starts at the top of its own UTC day, so no two share a rate-limit window. */
const { clock, dayStart } = clockInADayOfItsOwn(Date.UTC(2029, 0, 1));

beforeAll(async () => {
  t = await startTestApi();
  origin = new URL(t.baseUrl).origin;
});
afterAll(() => t.close());

const APP = 'https://app.example.com';
const OTHER_APP = 'http://localhost:5173';
const EXPOSED = CORS_EXPOSED_HEADERS.join(', ');

/** A project that allows `origins`, with a key (set before any request, so no cache holds the old record). */
async function projectAllowing(...origins: string[]) {
  const project = await t.createProject('pro');
  await t.projects.setAllowedOrigins(project.name, origins);
  const { apiKey } = await t.issueKey({ project: project.name });
  return { name: project.name, apiKey, host: `${project.name}.localhost:${new URL(origin).port}` };
}

async function call(
  path: string,
  {
    host,
    method = 'GET',
    apiKey,
    headers = {},
    body,
  }: {
    host?: string;
    method?: string;
    apiKey?: string;
    headers?: Record<string, string>;
    body?: unknown;
  } = {},
): Promise<RawResponse> {
  const lines: [string, string][] = [['Host', host ?? new URL(origin).host]];
  if (apiKey) lines.push(['Authorization', `Bearer ${apiKey}`]);
  if (body !== undefined) lines.push(['Content-Type', 'application/json']);
  lines.push(...Object.entries(headers));
  const request = {
    method,
    path: `/v1${path}`,
    headers: lines,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  };
  const response = await rawRequest(origin, request);
  // Every answer, preflights included, is one the OpenAPI document allows.
  await checkRawResponse(origin, request, response);
  return response;
}

const preflight = (path: string, host: string, from: string, method: string) =>
  call(path, {
    host,
    method: 'OPTIONS',
    headers: {
      Origin: from,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key',
    },
  });

/** The Access-Control-* headers of a response. */
const accessControl = (response: RawResponse) =>
  Object.fromEntries(Object.entries(response.headers).filter(([name]) => name.startsWith('access-control-')));

/** What an actual response to an allowed origin carries. */
const allowedFor = (from: string) => ({
  'access-control-allow-origin': from,
  'access-control-expose-headers': EXPOSED,
});

const errorOf = (response: RawResponse) => JSON.parse(response.text) as { code: string };

describe('preflights', () => {
  it('answers one from an allowed origin for a method of the path with 204 and the CORS headers', async () => {
    const { host } = await projectAllowing(APP, OTHER_APP);
    const response = await preflight('/pets', host, APP, 'POST');
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(accessControl(response)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
      'access-control-max-age': '7200',
    });
    expect(response.headers.vary).toBe('Origin');
    // Counted per client on the preflight allowance: it carries no key, so it is nobody's project traffic.
    expect(response.headers['x-ratelimit-limit']).toBe(String(PREFLIGHT_LIMITS.perMinute));
    const second = await preflight('/pets/1', host, OTHER_APP, 'GET');
    expect([second.status, second.headers['access-control-allow-methods']]).toEqual([204, 'GET']);
  });

  it("counts preflights from an allowed origin per client on their own allowance, never on the project's", async () => {
    const { host, apiKey } = await projectAllowing(APP);
    // More preflights than the anonymous allowance, all answered, none on the project.
    for (let i = 0; i <= ANONYMOUS_LIMITS.perMinute; i++) {
      const response = await preflight(`/pets/${i + 1}`, host, APP, 'GET');
      expect([response.status, response.headers['x-ratelimit-remaining']]).toEqual([
        204,
        String(PREFLIGHT_LIMITS.perMinute - i - 1),
      ]);
    }
    const read = await call('/pets', { host, apiKey, headers: { Origin: APP } });
    expect(read.headers['x-ratelimit-remaining']).toBe(String(PLANS.pro.limits.perMinute - 1));
    // A refused preflight is anonymous traffic.
    const refused = await preflight('/pets', host, 'https://evil.example', 'GET');
    expect([refused.status, refused.headers['x-ratelimit-limit']]).toEqual([
      403,
      String(ANONYMOUS_LIMITS.perMinute),
    ]);
  });

  it('refuses one from an origin the project does not allow: 403 cors_not_allowed, no CORS headers', async () => {
    const { host } = await projectAllowing(APP);
    for (const from of [
      'https://evil.example',
      'http://app.example.com',
      'https://app.example.com:8443',
      'null',
    ]) {
      const response = await preflight('/pets', host, from, 'GET');
      expect([response.status, errorOf(response).code, accessControl(response)]).toEqual([
        403,
        'cors_not_allowed',
        {},
      ]);
    }
  });

  it('refuses one for a method the path does not have', async () => {
    const { host } = await projectAllowing(APP);
    for (const [path, method] of [
      ['/pets', 'DELETE'],
      ['/pets/1', 'POST'],
      ['/openapi.json', 'PUT'],
    ] as const) {
      const response = await preflight(path, host, APP, method);
      const body = await expectError(
        new Response(response.text, { status: response.status, headers: response.headers }),
        403,
        'cors_not_allowed',
      );
      expect(body.message).toContain(`Method ${method} is not allowed on this path`);
      expect(accessControl(response)).toEqual({});
    }
  });

  it('answers one for an unknown path 404 not_found, as any method there', async () => {
    const { host } = await projectAllowing(APP);
    const response = await preflight('/no/such/path', host, APP, 'GET');
    expect([response.status, errorOf(response).code, accessControl(response)]).toEqual([
      404,
      'not_found',
      {},
    ]);
  });

  it('answers a plain OPTIONS on a known path with 204 and Allow: the 405 no longer takes it', async () => {
    for (const [path, allow] of [
      ['/pets', 'GET, POST'],
      ['/pets/1', 'GET'],
      ['/openapi.json', 'GET'],
    ] as const) {
      const response = await call(path, { method: 'OPTIONS' });
      expect([response.status, response.headers.allow, response.text]).toEqual([204, allow, '']);
      expect(response.headers['content-length']).toBeUndefined();
    }
  });
});

describe('actual requests', () => {
  it('let an allowed origin read GET and POST responses and the headers a client needs', async () => {
    const { host, apiKey } = await projectAllowing(APP);
    const created = await call('/pets', {
      host,
      apiKey,
      method: 'POST',
      body: { name: 'Rex', categoryId: 1 },
      headers: { Origin: APP },
    });
    expect(created.status).toBe(201);
    expect(created.headers).toMatchObject({ ...allowedFor(APP), vary: 'Origin' });
    expect(created.headers['access-control-expose-headers']).toMatch(/\bLocation\b.*/);
    const pet = JSON.parse(created.text) as Pet;

    const listed = await call('/pets', { host, apiKey, headers: { Origin: APP } });
    expect(listed.status).toBe(200);
    expect(listed.headers).toMatchObject({ ...allowedFor(APP), vary: 'Origin' });
    for (const name of ['X-RateLimit-Remaining', 'RateLimit', 'Link', 'Retry-After', 'Idempotent-Replayed']) {
      expect(listed.headers['access-control-expose-headers']?.split(', ')).toContain(name);
    }

    // The deprecated operation's headers too.
    const read = await call(`/pets/${pet.id}`, { host, apiKey, headers: { Origin: APP } });
    expect([read.status, read.headers['access-control-allow-origin']]).toEqual([200, APP]);
    expect(read.headers.deprecation).toBeDefined();
  });

  it('put them on the errors the operations and the middleware make: 404, 401, 405, 400', async () => {
    const { host, apiKey } = await projectAllowing(APP);
    const answers = [
      [await call('/pets/999999', { host, apiKey, headers: { Origin: APP } }), 404, 'pet_not_found'],
      [await call('/pets', { host, headers: { Origin: APP } }), 401, 'missing_api_key'],
      [await call('/pets', { host, apiKey: 'ask_nope', headers: { Origin: APP } }), 401, 'invalid_api_key'],
      [
        await call('/pets', { host, apiKey, method: 'DELETE', headers: { Origin: APP } }),
        405,
        'method_not_allowed',
      ],
      [await call('/pets?limit=0', { host, apiKey, headers: { Origin: APP } }), 400, 'invalid_parameter'],
    ] as const;
    for (const [response, status, code] of answers) {
      expect([response.status, errorOf(response).code, accessControl(response)]).toEqual([
        status,
        code,
        allowedFor(APP),
      ]);
    }
  });

  it("put them on the limiter's 429, so a page can read Retry-After", async () => {
    const { host } = await projectAllowing(APP);
    // Without a key the caller is counted per address: spend the anonymous minute.
    for (let sent = 0; sent < ANONYMOUS_LIMITS.perMinute; sent++) {
      expect((await call('/pets', { host, headers: { Origin: APP } })).status).toBe(401);
    }
    const refused = await call('/pets', { host, headers: { Origin: APP } });
    expect([refused.status, errorOf(refused).code]).toEqual([429, 'rate_limited']);
    expect(accessControl(refused)).toEqual(allowedFor(APP));
    expect(refused.headers['retry-after']).toBeDefined();
    // A preflight from the allowed origin has its own per-client allowance, apart from the spent anonymous one.
    const allowed = await preflight('/pets', host, APP, 'GET');
    expect(allowed.status).toBe(204);
  });

  it('carry none for another origin, or for a request without Origin; Vary: Origin on all of them', async () => {
    const { host, apiKey } = await projectAllowing(APP);
    for (const headers of [{ Origin: 'https://evil.example' }, {}, { Origin: 'null' }] as Record<
      string,
      string
    >[]) {
      for (const response of [
        await call('/pets', { host, apiKey, headers }),
        await call('/pets', { host, headers }),
        await call('/pets/999999', { host, apiKey, headers }),
      ]) {
        expect(accessControl(response)).toEqual({});
        expect(response.headers.vary).toBe('Origin');
      }
    }
  });

  it('stop within the cache time once the project no longer allows the origin', async () => {
    const { name, host, apiKey } = await projectAllowing(APP);
    expect((await call('/pets', { host, apiKey, headers: { Origin: APP } })).headers).toMatchObject(
      allowedFor(APP),
    );
    await t.projects.setAllowedOrigins(name, []);
    clock().advance(31_000);
    const after = await call('/pets', { host, apiKey, headers: { Origin: APP } });
    expect([after.status, accessControl(after)]).toEqual([200, {}]);
  });
});

describe('isolation between projects', () => {
  it("never applies project A's origins on project B's address, or on the shared one", async () => {
    const a = await projectAllowing(APP);
    const b = await projectAllowing(OTHER_APP);
    // A's origin at B's address, with B's key: no CORS, preflight refused.
    const onB = await call('/pets', { host: b.host, apiKey: b.apiKey, headers: { Origin: APP } });
    expect([onB.status, accessControl(onB)]).toEqual([200, {}]);
    expect((await preflight('/pets', b.host, APP, 'GET')).status).toBe(403);
    // B's origin at A's address.
    const onA = await call('/pets', { host: a.host, apiKey: a.apiKey, headers: { Origin: OTHER_APP } });
    expect([onA.status, accessControl(onA)]).toEqual([200, {}]);
    expect((await preflight('/pets', a.host, OTHER_APP, 'GET')).status).toBe(403);
    // The shared address names no project, whichever key is sent.
    const shared = await call('/pets', { apiKey: a.apiKey, headers: { Origin: APP } });
    expect([shared.status, accessControl(shared)]).toEqual([200, {}]);
    const sharedPreflight = await preflight('/pets', new URL(origin).host, APP, 'GET');
    expect([sharedPreflight.status, errorOf(sharedPreflight).code]).toEqual([403, 'cors_not_allowed']);
    // Each still works on its own address.
    expect((await preflight('/pets', a.host, APP, 'GET')).status).toBe(204);
    expect((await preflight('/pets', b.host, OTHER_APP, 'GET')).status).toBe(204);
  });

  it('gives an address without a project 404 and no CORS headers', async () => {
    const response = await preflight(
      '/pets',
      `nobody-${dayStart()}.localhost:${new URL(origin).port}`,
      APP,
      'GET',
    );
    expect([response.status, errorOf(response).code, accessControl(response)]).toEqual([
      404,
      'not_found',
      {},
    ]);
  });
});
