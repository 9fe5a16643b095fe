import { NO_SUCH_PATH } from '../../lambda/api/gateway-errors';
import { ANONYMOUS_LIMITS, PLANS } from '../../lambda/core/plans';
import { MAX_BODY_BYTES } from '../../lambda/api/limits';
import { now, setClock } from '../../lambda/shared/clock';
import { INVALID_BODIES, MALFORMED_JSON_BODIES } from '../support/invalid-bodies';
import { expectError, startTestApi, type TestApi } from '../support/test-api';

interface PetBody {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

const readJson = <T = PetBody>(response: Response) => response.json() as Promise<T>;

let t: TestApi;
let apiKey: string;

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/** An answer of the service (not of the gateway): it carries the rate-limit headers of the caller's plan. */
function expectServiceAnswer(response: Response, perMinute: number = PLANS.pro.limits.perMinute) {
  for (const name of RATE_LIMIT_HEADERS) expect([name, response.headers.get(name)]).not.toEqual([name, null]);
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(perMinute));
}

/** The service's 400 for a body: the code, a message naming what is wrong, and the rate-limit headers. */
async function expectRefusedBody(
  response: Response,
  code: 'invalid_body' | 'malformed_json',
  message: RegExp,
) {
  const error = await expectError(response, 400, code);
  expect(error.message).toMatch(message);
  expectServiceAnswer(response);
}

async function createPet(body: Record<string, unknown>) {
  const response = await t.request('/pets', { ...json(body), apiKey });
  expect(response.status).toBe(201);
  return readJson(response);
}

beforeAll(async () => {
  t = await startTestApi();
  apiKey = (await t.issueKey('pro')).apiKey;
});
afterAll(() => t.close());

// Each test runs an hour after the previous one on the service clock, so that no test
// inherits another's rate-limit window (rate limits have their own tests).
let hours = 0;
let restoreClock: () => void = () => undefined;
beforeEach(() => {
  const offset = ++hours * 3_600_000;
  restoreClock = setClock(() => Date.now() + offset);
});
afterEach(() => restoreClock());

describe('POST /pets (createPet)', () => {
  it('201: answers the created pet with its id and a Location that reads it back', async () => {
    const response = await t.request('/pets', {
      ...json({ name: 'Rex', categoryId: 7, status: 'pending' }),
      apiKey,
    });
    expect(response.status).toBe(201);
    const pet = await readJson(response);
    expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 7, status: 'pending' });
    expect(Number.isSafeInteger(pet.id) && pet.id > 0).toBe(true);
    expect(response.headers.get('location')).toBe(`${t.baseUrl}/pets/${pet.id}`);
    const readBack = await t.request(response.headers.get('location') ?? '', { apiKey });
    expect(await readBack.json()).toEqual(pet);
  });

  it('201: a pet created without a status is available', async () => {
    expect((await createPet({ name: 'Tom', categoryId: 1 })).status).toBe('available');
  });

  it('accepts Content-Type application/json with a UTF-8 charset', async () => {
    const response = await t.request('/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ name: 'Ünïcødé 🐈', categoryId: 2 }),
      apiKey,
    });
    expect(response.status).toBe(201);
    expect((await readJson(response)).name).toBe('Ünïcødé 🐈');
  });

  it('400 invalid_body naming the missing categoryId, with the rate-limit headers', async () => {
    const response = await t.request('/pets', { ...json('{"name":"x"}'), apiKey });
    await expectRefusedBody(response, 'invalid_body', /categoryId is required/);
  });

  it.each(INVALID_BODIES)(
    '400 invalid_body from the service, naming each problem: %s',
    async (_case, body, message) => {
      await expectRefusedBody(await t.request('/pets', { ...json(body), apiKey }), 'invalid_body', message);
    },
  );

  it.each(MALFORMED_JSON_BODIES)('400 malformed_json: %s', async (body) => {
    await expectRefusedBody(
      await t.request('/pets', { ...json(body), apiKey }),
      'malformed_json',
      /not valid JSON/,
    );
  });

  it('400 malformed_json: a body that is not UTF-8', async () => {
    const body = Buffer.from([0x7b, 0x22, 0x6e, 0xff, 0xfe, 0x22, 0x7d]);
    const response = await t.request('/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
      apiKey,
    });
    await expectRefusedBody(response, 'malformed_json', /UTF-8/);
  });

  it('400 invalid_body: a missing body', async () => {
    const response = await t.request('/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      apiKey,
    });
    await expectRefusedBody(response, 'invalid_body', /body is required/);
  });

  it('415 unsupported_media_type for a body sent without Content-Type, valid or not', async () => {
    for (const body of ['{}', '{"name":"Rex","categoryId":1}']) {
      // A Buffer, because fetch labels a string body text/plain.
      const response = await t.request('/pets', { method: 'POST', body: Buffer.from(body), apiKey });
      await expectError(response, 415, 'unsupported_media_type');
      expectServiceAnswer(response);
    }
  });

  it('401 before the body is looked at: without a key an invalid body is not validated', async () => {
    const response = await t.request('/pets', json({ categoryId: 1 }));
    await expectError(response, 401, 'missing_api_key');
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/json; charset=latin1']])(
    '415 unsupported_media_type: Content-Type %s',
    async (contentType) => {
      const response = await t.request('/pets', {
        method: 'POST',
        headers: { 'Content-Type': contentType },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
        apiKey,
      });
      const error = await expectError(response, 415, 'unsupported_media_type');
      expect(error.message).toContain(contentType);
    },
  );

  it('413 payload_too_large: a body over the documented limit', async () => {
    const body = JSON.stringify({ name: 'Rex', categoryId: 1, padding: 'x'.repeat(MAX_BODY_BYTES) });
    const error = await expectError(
      await t.request('/pets', { ...json(body), apiKey }),
      413,
      'payload_too_large',
    );
    expect(error.message).toContain(String(MAX_BODY_BYTES));
  });

  it('400 invalid_parameter: query parameters are refused', async () => {
    const response = await t.request('/pets?dryRun=true', {
      ...json({ name: 'Rex', categoryId: 1 }),
      apiKey,
    });
    expect((await expectError(response, 400, 'invalid_parameter')).message).toMatch(
      /takes no query parameters/,
    );
  });

  it('401: refuses to create without a valid key, and stores nothing', async () => {
    const before = await listAll();
    await expectError(
      await t.request('/pets', json({ name: 'Sneaky', categoryId: 1 })),
      401,
      'missing_api_key',
    );
    await expectError(
      await t.request('/pets', {
        ...json({ name: 'Sneaky', categoryId: 1 }),
        headers: { Authorization: 'Bearer ask_nope' },
      }),
      401,
      'invalid_api_key',
    );
    expect(await listAll()).toEqual(before);
  });
});

async function listAll(query = ''): Promise<{ id: number; status: string }[]> {
  const pets: { id: number; status: string }[] = [];
  let url: string | undefined = `${t.baseUrl}/pets?limit=100${query}`;
  while (url) {
    const response = await t.request(url, { apiKey });
    expect(response.status).toBe(200);
    pets.push(...(await readJson<PetBody[]>(response)));
    url = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return pets;
}

describe('GET /pets (listPets)', () => {
  let created: { id: number; status: string }[];

  beforeAll(async () => {
    const statuses = ['available', 'pending', 'sold'];
    created = [];
    for (let index = 0; index < 45; index++) {
      created.push(
        await createPet({ name: `pet ${index}`, categoryId: 1 + (index % 4), status: statuses[index % 3] }),
      );
    }
  });

  it('200: a JSON array of pets, 20 by default', async () => {
    const response = await t.request('/pets', { apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const pets = await readJson<PetBody[]>(response);
    expect(Array.isArray(pets)).toBe(true);
    expect(pets).toHaveLength(20);
    for (const pet of pets) expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
  });

  it('honours limit from 1 to 100', async () => {
    expect(await (await t.request('/pets?limit=1', { apiKey })).json()).toHaveLength(1);
    const hundred = await readJson<PetBody[]>(await t.request('/pets?limit=100', { apiKey }));
    expect(hundred.length).toBeGreaterThanOrEqual(45);
    expect(hundred.length).toBeLessThanOrEqual(100);
  });

  it.each(['0', '101', 'abc', '1.5', '', '-1', '1e1', '007'])(
    '400 invalid_parameter: limit=%s',
    async (limit) => {
      const error = await expectError(
        await t.request(`/pets?limit=${limit}`, { apiKey }),
        400,
        'invalid_parameter',
      );
      expect(error.message).toMatch(/limit must be an integer from 1 to 100/);
    },
  );

  it('400 invalid_parameter: limit given twice', async () => {
    const error = await expectError(
      await t.request('/pets?limit=5&limit=6', { apiKey }),
      400,
      'invalid_parameter',
    );
    expect(error.message).toMatch(/limit was given 2 times/);
  });

  it.each(['Available', 'lost', ''])('400 invalid_parameter: status=%s', async (status) => {
    const error = await expectError(
      await t.request(`/pets?status=${status}`, { apiKey }),
      400,
      'invalid_parameter',
    );
    expect(error.message).toMatch(/status must be one of available, pending, sold/);
  });

  it('400 invalid_parameter: an unknown parameter (a typo is not silently ignored)', async () => {
    const error = await expectError(
      await t.request('/pets?stauts=sold', { apiKey }),
      400,
      'invalid_parameter',
    );
    expect(error.message).toMatch(
      /Unknown query parameter "stauts"; allowed parameters are limit, status, cursor/,
    );
  });

  it.each(['available', 'pending', 'sold'])(
    'status=%s returns only pets with that status',
    async (status) => {
      const pets = await listAll(`&status=${status}`);
      expect(pets.length).toBeGreaterThanOrEqual(15);
      expect(pets.every((pet) => pet.status === status)).toBe(true);
      const expected = created.filter((pet) => pet.status === status).map((pet) => pet.id);
      expect(pets.map((pet) => pet.id)).toEqual(expect.arrayContaining(expected));
    },
  );

  it('following Link rel="next" returns every pet exactly once, in ascending id order', async () => {
    const everything = await listAll();
    const seen: number[] = [];
    let url: string | undefined = `${t.baseUrl}/pets?limit=7`;
    let pages = 0;
    while (url) {
      const response = await t.request(url, { apiKey });
      const page = (await response.json()) as { id: number }[];
      expect(page.length).toBeGreaterThan(0);
      seen.push(...page.map((pet) => pet.id));
      const link = response.headers.get('link');
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
      if (link) expect(url).toMatch(new RegExp(`^${t.baseUrl}/pets\\?limit=7&cursor=[A-Za-z0-9_-]+$`));
      pages++;
    }
    expect(pages).toBe(Math.ceil(everything.length / 7));
    expect(seen).toEqual(everything.map((pet) => pet.id));
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('the last page carries no Link', async () => {
    const response = await t.request('/pets?status=sold&limit=100', { apiKey });
    expect(response.headers.get('link')).toBeNull();
  });

  it('the next link keeps the status filter', async () => {
    const response = await t.request('/pets?status=pending&limit=2', { apiKey });
    expect(response.headers.get('link')).toMatch(/\?limit=2&status=pending&cursor=/);
  });

  it('400 invalid_cursor: a tampered cursor', async () => {
    const link = (await t.request('/pets?limit=2', { apiKey })).headers.get('link') ?? '';
    const cursor = /cursor=([^>&]+)/.exec(link)?.[1] ?? '';
    const tampered = cursor.slice(0, 5) + (cursor[5] === 'a' ? 'b' : 'a') + cursor.slice(6);
    const error = await expectError(
      await t.request(`/pets?limit=2&cursor=${tampered}`, { apiKey }),
      400,
      'invalid_cursor',
    );
    expect(error.message).toMatch(/cursor is not valid/);
    await expectError(await t.request('/pets?cursor=eyJpZCI6MX0', { apiKey }), 400, 'invalid_cursor');
  });

  it('400 invalid_cursor: a cursor used with a different status', async () => {
    const link = (await t.request('/pets?status=sold&limit=2', { apiKey })).headers.get('link') ?? '';
    const cursor = /cursor=([^>&]+)/.exec(link)?.[1] ?? '';
    const error = await expectError(
      await t.request(`/pets?status=available&cursor=${cursor}`, { apiKey }),
      400,
      'invalid_cursor',
    );
    expect(error.message).toMatch(/different status filter/);
    await expectError(await t.request(`/pets?cursor=${cursor}`, { apiKey }), 400, 'invalid_cursor');
  });

  it('401: refuses to list without a key', async () => {
    await expectError(await t.request('/pets'), 401, 'missing_api_key');
  });
});

describe('GET /pets/{petId} (getPet, deprecated)', () => {
  let pet: { id: number };

  beforeAll(async () => {
    pet = await createPet({ name: 'Old Faithful', categoryId: 9, status: 'sold' });
  });

  function expectDeprecationHeaders(response: Response) {
    expect(response.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 0, 1) / 1000}`);
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(response.headers.get('link')).toBe(`<${t.baseUrl}/pets>; rel="successor-version"`);
  }

  it('200: the pet, with deprecation headers', async () => {
    const response = await t.request(`/pets/${pet.id}`, { apiKey });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: pet.id,
      name: 'Old Faithful',
      categoryId: 9,
      status: 'sold',
    });
    expectDeprecationHeaders(response);
  });

  it('404 pet_not_found: an id nobody has, with deprecation headers', async () => {
    const response = await t.request('/pets/1', { apiKey });
    expect((await expectError(response, 404, 'pet_not_found')).message).toBe('No pet has id 1.');
    expectDeprecationHeaders(response);
  });

  it.each(['abc', '0', '-5', '1.5', '9007199254740992', '1e3', '%20'])(
    '400 invalid_parameter: petId %s',
    async (id) => {
      const response = await t.request(`/pets/${id}`, { apiKey });
      expect((await expectError(response, 400, 'invalid_parameter')).message).toMatch(
        /petId must be an integer from 1 to/,
      );
      expectDeprecationHeaders(response);
    },
  );

  it('401: refuses without a key, still with deprecation headers', async () => {
    const response = await t.request(`/pets/${pet.id}`);
    await expectError(response, 401, 'missing_api_key');
    expectDeprecationHeaders(response);
  });

  it('410 gone from the sunset date on, with deprecation headers; 200 the moment before', async () => {
    const sunset = Date.UTC(2030, 11, 5);
    let restore = setClock(() => sunset - 1);
    try {
      expect((await t.request(`/pets/${pet.id}`, { apiKey })).status).toBe(200);
    } finally {
      restore();
    }
    restore = setClock(() => sunset);
    try {
      const response = await t.request(`/pets/${pet.id}`, { apiKey });
      expect((await expectError(response, 410, 'gone')).message).toMatch(/removed on Thu, 05 Dec 2030/);
      expectDeprecationHeaders(response);
    } finally {
      restore();
    }
  });
});

describe('authentication', () => {
  it('accepts the scheme in any case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const response = await t.request('/pets?limit=1', {
        headers: { Authorization: `${scheme} ${apiKey}` },
      });
      expect(response.status).toBe(200);
    }
  });

  it('401 missing_api_key with a Bearer challenge when no header is sent', async () => {
    const response = await t.request('/pets');
    await expectError(response, 401, 'missing_api_key');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="animal-store"');
  });

  it.each([`Basic ${Buffer.from('user:pass').toString('base64')}`, 'Bearer', 'Token abc'])(
    '401 invalid_authorization for the header %j',
    async (header) => {
      await expectError(
        await t.request('/pets', { headers: { Authorization: header } }),
        401,
        'invalid_authorization',
      );
    },
  );

  it('401 invalid_api_key for an unknown key, and the same message as for a malformed one', async () => {
    const unknown = await expectError(
      await t.request('/pets', {
        apiKey: 'ask_aaaaaaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      }),
      401,
      'invalid_api_key',
    );
    const malformed = await expectError(
      await t.request('/pets', { apiKey: 'letmein' }),
      401,
      'invalid_api_key',
    );
    expect(unknown.message).toBe(malformed.message);
  });

  it('401 invalid_api_key for a revoked key once the 30 s key cache has expired', async () => {
    const { apiKey: doomed, record } = await t.issueKey('free');
    expect((await t.request('/pets?limit=1', { apiKey: doomed })).status).toBe(200);
    await t.keys.revoke(record.keyId, new Date());
    const revokedAt = now();
    const restore = setClock(() => revokedAt + 31_000);
    try {
      await expectError(await t.request('/pets?limit=1', { apiKey: doomed }), 401, 'invalid_api_key');
    } finally {
      restore();
    }
  });
});

describe('unknown paths and methods', () => {
  it.each(['/v2/pets', '/pets', '/', '/V1/pets'])(
    '404 not_found from the gateway for %s, outside /v1: no function runs, so no rate-limit headers',
    async (path) => {
      const response = await t.request(`${t.baseUrl.replace(/\/v1$/, '')}${path}`, { apiKey });
      expect((await expectError(response, 404, 'not_found')).message).toBe(NO_SUCH_PATH);
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    },
  );

  it.each(['/v1', '/v1/', '/v1/pets/1/owner', '/v1/animals', '/v1//pets', '/v1/openapi.json/x'])(
    '404 not_found from the service for %s, with the rate-limit headers',
    async (path) => {
      const response = await t.request(`${t.baseUrl.replace(/\/v1$/, '')}${path}`, { apiKey });
      await expectError(response, 404, 'not_found');
      expectServiceAnswer(response);
    },
  );

  it.each([
    ['DELETE', '/pets', 'GET, POST'],
    ['PUT', '/pets', 'GET, POST'],
    ['PATCH', '/pets/1', 'GET'],
    ['POST', '/pets/1', 'GET'],
    ['DELETE', '/pets/1', 'GET'],
    ['POST', '/openapi.json', 'GET'],
  ])(
    '405 method_not_allowed for %s %s, with Allow: %s and the rate-limit headers',
    async (method, path, allow) => {
      const response = await t.request(path, { method, apiKey });
      await expectError(response, 405, 'method_not_allowed');
      expect(response.headers.get('allow')).toBe(allow);
      expectServiceAnswer(response);
    },
  );

  it('every one is counted: an unknown path, a wrong method, then an operation each take one request', async () => {
    const frozen = now();
    const restore = setClock(() => frozen);
    try {
      const answers = [
        await t.request('/nothing-here', { apiKey }),
        await t.request('/pets', { method: 'DELETE', apiKey }),
        await t.request('/pets?limit=1', { apiKey }),
      ];
      expect(answers.map((r) => [r.status, r.headers.get('x-ratelimit-remaining')])).toEqual(
        [404, 405, 200].map((status, index) => [status, String(PLANS.pro.limits.perMinute - 1 - index)]),
      );
    } finally {
      restore();
    }
  });

  it('without a key, unknown paths and methods are counted against the anonymous allowance', async () => {
    const response = await t.request('/nothing-here');
    await expectError(response, 404, 'not_found');
    expectServiceAnswer(response, ANONYMOUS_LIMITS.perMinute);
  });

  it('413 at the edge for a body far over the limit, on any path', async () => {
    const body = 'x'.repeat(1024 * 1024);
    await expectError(await t.request('/pets', { method: 'POST', body, apiKey }), 413, 'payload_too_large');
  });
});
