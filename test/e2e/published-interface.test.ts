import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ANONYMOUS_LIMITS, PLANS } from '../../lambda/core/plans';
import { checkResponse, ContractViolation } from '../support/contract';
import { startTestApi, type TestApi } from '../support/test-api';

/** The served document, the typed client, and the contract checks every e2e response goes through. */
let t: TestApi;
let apiKey: string;
beforeAll(async () => {
  t = await startTestApi();
  apiKey = (await t.issueKey('pro')).apiKey;
});
afterAll(() => t.close());

const checkedIn = JSON.parse(
  readFileSync(path.join(__dirname, '..', '..', 'openapi.json'), 'utf8'),
) as unknown;

describe('GET /v1/openapi.json', () => {
  it('serves the checked-in document without a key, counted against the anonymous allowance', async () => {
    const response = await t.request('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(checkedIn);
    expect(response.headers.get('x-ratelimit-limit')).toBe(String(ANONYMOUS_LIMITS.perMinute));
    expect(response.headers.get('ratelimit-policy')).toBe(
      `"minute";q=${ANONYMOUS_LIMITS.perMinute};w=60, "day";q=${ANONYMOUS_LIMITS.perDay};w=86400`,
    );
  });

  it('ignores an invalid key (still anonymous) and counts a valid one against its plan', async () => {
    const invalid = await t.request('/openapi.json', { apiKey: 'ask_nope' });
    expect(invalid.status).toBe(200);
    expect(invalid.headers.get('x-ratelimit-limit')).toBe(String(ANONYMOUS_LIMITS.perMinute));
    const keyed = await t.request('/openapi.json', { apiKey });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('x-ratelimit-limit')).toBe(String(PLANS.pro.limits.perMinute));
  });

  it('answers other methods with 405 and Allow: GET', async () => {
    const response = await t.request('/openapi.json', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });

  it('is the same document through the typed client', async () => {
    const { data, response } = await t.client().GET('/openapi.json');
    expect(response.status).toBe(200);
    expect(data).toEqual(checkedIn);
  });
});

describe('the main flows through the client typed from the document', () => {
  it('createPet → getPet → listPets', async () => {
    const client = t.client(apiKey);
    const created = await client.POST('/pets', {
      body: { name: 'Typed Tiddles', categoryId: 3, status: 'pending' },
    });
    expect(created.response.status).toBe(201);
    const pet = created.data;
    if (!pet) throw new Error(`createPet failed: ${JSON.stringify(created.error)}`);
    expect(pet).toEqual({ id: expect.any(Number), name: 'Typed Tiddles', categoryId: 3, status: 'pending' });
    expect(created.response.headers.get('location')).toBe(`${t.baseUrl}/pets/${pet.id}`);

    const read = await client.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
    expect(read.data).toEqual(pet);
    expect(read.response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');

    const listed = await client.GET('/pets', { params: { query: { status: 'pending', limit: 100 } } });
    expect(listed.data?.map((p) => p.id)).toContain(pet.id);
    expect(listed.data?.every((p) => p.status === 'pending')).toBe(true);
  });

  it('errors come back typed as the Error body', async () => {
    const anonymous = await t.client().GET('/pets', { params: { query: { limit: 1 } } });
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.error).toMatchObject({ code: 'missing_api_key', status: 401 });

    const missing = await t.client(apiKey).GET('/pets/{petId}', { params: { path: { petId: 1 } } });
    expect(missing.error).toMatchObject({ code: 'pet_not_found', status: 404 });

    const invalid = await t.client(apiKey).POST('/pets', { body: { name: '', categoryId: 1 } });
    expect(invalid.error).toMatchObject({ code: 'invalid_body', status: 400 });
  });
});

describe('the contract check fails a response the document does not allow', () => {
  const rateHeaders = {
    'content-type': 'application/json; charset=utf-8',
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
    'x-ratelimit-reset': '1767225660',
    'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
    ratelimit: '"minute";r=59;t=42, "day";r=999;t=41000',
  };
  const pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
  const check = (
    method: string,
    url: string,
    status: number,
    body: unknown,
    headers: Record<string, string>,
  ) =>
    checkResponse(
      method,
      `${t.baseUrl}${url}`,
      new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers }),
    );

  it('accepts a conforming response', async () => {
    await expect(check('GET', '/pets', 200, [pet], rateHeaders)).resolves.toBeUndefined();
  });

  interface Case {
    method?: string;
    url?: string;
    status?: number;
    body?: unknown;
    headers?: Record<string, string | undefined>;
    reason: RegExp;
  }
  const error = (code: string, status: number) => ({ code, message: 'x', status });
  const cases: [string, Case][] = [
    [
      'a required header is missing',
      { headers: { 'x-ratelimit-limit': undefined }, reason: /x-ratelimit-limit/ },
    ],
    [
      'a header has the wrong form',
      { headers: { ratelimit: 'lots' }, reason: /ratelimit must match pattern/ },
    ],
    ['the body has an unknown field', { body: [{ ...pet, owner: 'x' }], reason: /additional properties/ }],
    [
      'a field breaks its schema',
      { body: [{ ...pet, status: 'lost' }], reason: /status must be equal to one of/ },
    ],
    ['the status is not documented', { status: 418, body: error('x', 418), reason: /returned status code/ }],
    [
      'the code does not belong to the status',
      { url: '/pets/1', status: 404, body: error('not_found', 404), reason: /code must be equal to one of/ },
    ],
    [
      'the media type is wrong',
      { headers: { 'content-type': 'text/plain' }, body: '[]', reason: /media type/ },
    ],
    [
      'a 405 lacks Allow',
      { method: 'DELETE', status: 405, body: error('method_not_allowed', 405), reason: /'allow'/ },
    ],
    ['a 429 lacks Retry-After', { status: 429, body: error('rate_limited', 429), reason: /'retry-after'/ }],
  ];
  it.each(cases)(
    '%s',
    async (_case, { method = 'GET', url = '/pets', status = 200, body = [pet], headers, reason }) => {
      const defined = Object.fromEntries(
        Object.entries({ ...rateHeaders, ...headers }).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      );
      const failure = check(method, url, status, body, defined);
      await expect(failure).rejects.toThrow(ContractViolation);
      await expect(failure).rejects.toThrow(reason);
    },
  );
});
