import type { Pet } from '../../lambda/core/pet';
import { ANONYMOUS_LIMITS, PLANS } from '../../lambda/core/plans';
import { clockInADayOfItsOwn } from '../support/fake-clock';
import { rawRequest, type RawResponse } from '../support/raw-http';
import { expectError, startTestApi, type TestApi } from '../support/test-api';

/**
 * Tenancy end to end, over HTTP against local mode: a project's keys see only its pets,
 * its address serves only its keys, and its limits are its own.
 */

let t: TestApi;
let origin: string;
/** Each test starts at the top of its own UTC day, so no two share a window. */
const { clock } = clockInADayOfItsOwn(Date.UTC(2028, 0, 1));

beforeAll(async () => {
  t = await startTestApi();
  origin = new URL(t.baseUrl).origin;
});
afterAll(() => t.close());

/** A request to the local server with an explicit Host (a project address is `<project>.localhost`). */
function call(
  path: string,
  {
    apiKey,
    host,
    method = 'GET',
    body,
  }: { apiKey?: string; host?: string; method?: string; body?: unknown } = {},
): Promise<RawResponse> {
  const headers: [string, string][] = [['Host', host ?? new URL(origin).host]];
  if (apiKey) headers.push(['Authorization', `Bearer ${apiKey}`]);
  if (body !== undefined) headers.push(['Content-Type', 'application/json']);
  return rawRequest(origin, {
    method,
    path: `/v1${path}`,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

const addressOf = (project: string) => `${project}.localhost:${new URL(origin).port}`;
const json = <T>(response: RawResponse) => JSON.parse(response.text) as T;

async function createPets(apiKey: string, names: string[]): Promise<Pet[]> {
  const pets: Pet[] = [];
  for (const name of names) {
    // Ids order pets by creation time to the millisecond: the frozen clock moves one per pet.
    clock().advance(1);
    const response = await call('/pets', { apiKey, method: 'POST', body: { name, categoryId: 1 } });
    expect(response.status).toBe(201);
    pets.push(json<Pet>(response));
  }
  return pets;
}

describe('isolation between projects', () => {
  it("lists, reads and guesses only the caller's own pets", async () => {
    const a = await t.createProject('pro');
    const b = await t.createProject('pro');
    const keyA = (await t.issueKey({ project: a.name })).apiKey;
    const keyB = (await t.issueKey({ project: b.name })).apiKey;
    const petsA = await createPets(keyA, ['A1', 'A2']);
    const petsB = await createPets(keyB, ['B1', 'B2', 'B3']);

    expect(json<Pet[]>(await call('/pets?limit=100', { apiKey: keyA })).map((pet) => pet.name)).toEqual([
      'A1',
      'A2',
    ]);
    expect(
      json<Pet[]>(await call('/pets?limit=100&status=available', { apiKey: keyB })).map((pet) => pet.name),
    ).toEqual(['B1', 'B2', 'B3']);

    // Another project's id answers exactly as a missing one: same status, code and message form.
    const theirs = await call(`/pets/${petsB[0]?.id}`, { apiKey: keyA });
    const missingId = (petsB[2]?.id ?? 0) + 1;
    const missing = await call(`/pets/${missingId}`, { apiKey: keyA });
    expect(theirs.status).toBe(404);
    expect(json<{ code: string; message: string }>(theirs)).toEqual({
      code: 'pet_not_found',
      message: `No pet has id ${petsB[0]?.id}.`,
      status: 404,
    });
    expect(json<{ message: string }>(missing).message).toBe(`No pet has id ${missingId}.`);
    expect((await call(`/pets/${petsA[0]?.id}`, { apiKey: keyA })).status).toBe(200);
  });

  it("accepts on a project's address only that project's keys; another project's valid key is an unknown key there", async () => {
    const a = await t.createProject('pro');
    const b = await t.createProject('pro');
    const keyA = (await t.issueKey({ project: a.name })).apiKey;
    const keyB = (await t.issueKey({ project: b.name })).apiKey;
    const [petB] = await createPets(keyB, ['only B']);

    const own = await call('/pets', { apiKey: keyB, host: addressOf(b.name) });
    expect(own.status).toBe(200);
    expect(json<Pet[]>(own)).toEqual([petB]);

    const foreign = await call('/pets', { apiKey: keyA, host: addressOf(b.name) });
    const unknown = await call('/pets', {
      apiKey: `ask_${'a'.repeat(16)}_${'b'.repeat(43)}`,
      host: addressOf(b.name),
    });
    for (const response of [foreign, unknown]) {
      expect(response.status).toBe(401);
      expect(json<{ code: string }>(response).code).toBe('invalid_api_key');
      // Counted against the anonymous allowance of the address, like any invalid key.
      expect(response.headers['x-ratelimit-limit']).toBe(String(ANONYMOUS_LIMITS.perMinute));
    }
    expect(JSON.parse(foreign.text)).toEqual(JSON.parse(unknown.text));

    // The loopback base URL names no project: any project's valid key works there.
    expect((await call('/pets', { apiKey: keyA })).status).toBe(200);
  });

  it('answers 404 on a project address that no project has, for every path and key', async () => {
    const a = await t.createProject('free');
    const keyA = (await t.issueKey({ project: a.name })).apiKey;
    for (const [path, apiKey] of [
      ['/pets', keyA],
      ['/pets', undefined],
      ['/openapi.json', undefined],
      ['/nothing-here', keyA],
    ] as const) {
      const response = await call(path, {
        ...(apiKey ? { apiKey } : {}),
        host: addressOf('no-such-project'),
      });
      expect(response.status).toBe(404);
      expect(json<{ code: string; message: string }>(response)).toMatchObject({
        code: 'not_found',
        message: expect.stringContaining('no-such-project.localhost'),
      });
    }
  });
});

describe('limits per project', () => {
  const free = PLANS.free.limits.perMinute;
  it(`gives two keys of one Free project together exactly ${free} admissions in a minute`, async () => {
    const project = await t.createProject('free');
    const first = (await t.issueKey({ project: project.name })).apiKey;
    const second = (await t.issueKey({ project: project.name })).apiKey;
    const statuses: number[] = [];
    for (let index = 0; index < free + 10; index++) {
      statuses.push((await call('/pets?limit=1', { apiKey: index % 2 === 0 ? first : second })).status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(free);
    expect(statuses.slice(free).every((status) => status === 429)).toBe(true);
  });

  it("leaves a project's counters untouched by another project's traffic", async () => {
    const a = await t.createProject('free');
    const b = await t.createProject('free');
    const keyA = (await t.issueKey({ project: a.name })).apiKey;
    const keyB = (await t.issueKey({ project: b.name })).apiKey;
    const before = await call('/pets?limit=1', { apiKey: keyA });
    for (let index = 0; index < 25; index++) await call('/pets?limit=1', { apiKey: keyB });
    const after = await call('/pets?limit=1', { apiKey: keyA });
    expect(Number(before.headers['x-ratelimit-remaining'])).toBe(PLANS.free.limits.perMinute - 1);
    expect(Number(after.headers['x-ratelimit-remaining'])).toBe(PLANS.free.limits.perMinute - 2);
  });

  it("enforces an Enterprise project's agreed numbers, stored on the project", async () => {
    const project = await t.createProject('enterprise', { agreedLimits: { perMinute: 7, perDay: 4_321 } });
    const apiKey = (await t.issueKey({ project: project.name })).apiKey;
    const statuses: number[] = [];
    for (let index = 0; index < 8; index++) statuses.push((await call('/pets?limit=1', { apiKey })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 429]);
    const policy = (await call('/pets?limit=1', { apiKey })).headers['ratelimit-policy'];
    expect(policy).toBe('"minute";q=7;w=60, "day";q=4321;w=86400');
  });

  it('bans the key, not the project: the next minute the banned key stays banned while another key of the project is served', async () => {
    const project = await t.createProject('free');
    const first = (await t.issueKey({ project: project.name })).apiKey;
    const second = (await t.issueKey({ project: project.name })).apiKey;
    // A minute's allowance, then 10 refusals while limited earn a ban.
    for (let index = 0; index < PLANS.free.limits.perMinute + 11; index++)
      await call('/pets?limit=1', { apiKey: first });
    clock().advance(60_000);
    expect((await t.request('/pets?limit=1', { apiKey: second })).status).toBe(200);
    await expectError(await t.request('/pets?limit=1', { apiKey: first }), 429, 'temporarily_banned');
  });
});
