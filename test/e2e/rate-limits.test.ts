import { ANONYMOUS_LIMITS, isAgreedPlan, PLAN_NAMES, type PlanLimits, PLANS } from '../../lambda/core/plans';
import { BAN_THRESHOLD, banDuration } from '../../lambda/core/rate-limiter';
import { clockInADayOfItsOwn } from '../support/fake-clock';
import { expectError, startTestApi, type TestApi } from '../support/test-api';

let t: TestApi;
/** Each test starts at the top of its own UTC day, so no two share a window. */
const { clock, dayStart } = clockInADayOfItsOwn(Date.UTC(2027, 0, 1));

beforeAll(async () => {
  t = await startTestApi();
});
afterAll(() => t.close());

const FREE = PLANS.free.limits;

/** A plan whose numbers are agreed per project (the table's), and the standard plans. */
const AGREED_PLAN = PLAN_NAMES.find((plan) => isAgreedPlan(PLANS[plan]));
const STANDARD_PLANS = PLAN_NAMES.flatMap((plan) => {
  const definition = PLANS[plan];
  return isAgreedPlan(definition) ? [] : [[plan, definition.limits] as const];
});

/**
 * A key of a project with small agreed numbers, for tests whose subject is how the windows
 * and bans work rather than a plan's numbers: a few requests exhaust them, where a plan's
 * day takes thousands (the numbers each plan gets are tested one request per plan below).
 */
async function keyWithLimits(limits: PlanLimits): Promise<string> {
  if (!AGREED_PLAN) throw new Error('the plan table has no agreed plan');
  const project = await t.createProject(AGREED_PLAN, { agreedLimits: limits });
  return (await t.issueKey({ project: project.name })).apiKey;
}

const list = (apiKey?: string) => t.request('/pets?limit=1', apiKey ? { apiKey } : {});

async function spend(apiKey: string, count: number) {
  for (let index = 0; index < count; index++) expect((await list(apiKey)).status).toBe(200);
}

const RATE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
];

function expectRateHeaders(response: Response, limit: number) {
  for (const name of RATE_HEADERS) expect(response.headers.get(name)).not.toBeNull();
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(clock().now() / 1000);
}

describe('per-minute and per-day limits', () => {
  it(`Free: request ${FREE.perMinute + 1} of a minute gets 429 with Retry-After to the end of the minute; the next minute admits`, async () => {
    const { apiKey } = await t.issueKey('free');
    await spend(apiKey, FREE.perMinute - 1);
    const last = await list(apiKey);
    expect(last.status).toBe(200);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await list(apiKey);
    const error = await expectError(refused, 429, 'rate_limited');
    expect(error.message).toMatch(
      new RegExp(`${FREE.perMinute} requests per minute for project t-[0-9a-f]+ \\(free plan\\)`),
    );
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String((dayStart() + 60_000) / 1000));
    clock().set(dayStart() + 60_000);
    const next = await list(apiKey);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe(String(FREE.perMinute - 1));
  });

  it('request perDay + 1 of a day is refused even when spread over minutes, until midnight UTC', async () => {
    // Per day more than twice per minute, and not a multiple of it: three minutes, the last partly spent.
    const limits = { perMinute: 4, perDay: 10 };
    const apiKey = await keyWithLimits(limits);
    let minute = 0;
    for (let spent = 0; spent < limits.perDay; minute++) {
      clock().set(dayStart() + minute * 60_000);
      const count = Math.min(limits.perMinute, limits.perDay - spent);
      await spend(apiKey, count);
      spent += count;
    }
    expect(minute).toBeGreaterThan(2);
    clock().set(dayStart() + minute * 60_000 + 30_000);
    const refused = await list(apiKey);
    expect((await expectError(refused, 429, 'rate_limited')).message).toMatch(
      `${limits.perDay} requests per day`,
    );
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(limits.perDay));
    expect(refused.headers.get('retry-after')).toBe(String((86_400_000 - minute * 60_000 - 30_000) / 1000));
    clock().set(dayStart() + 86_400_000);
    expect((await list(apiKey)).status).toBe(200);
  });

  it.each(STANDARD_PLANS)(
    '%s: the limiter counts down from the plan table’s per-minute and per-day numbers',
    async (plan, { perMinute, perDay }) => {
      const { apiKey } = await t.issueKey(plan);
      const response = await list(apiKey);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe(String(perMinute));
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(perMinute - 1));
      // The IETF fields describe both windows.
      expect(response.headers.get('ratelimit-policy')).toBe(
        `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`,
      );
      expect(response.headers.get('ratelimit')).toBe(
        `"minute";r=${perMinute - 1};t=50, "day";r=${perDay - 1};t=86390`,
      );
    },
  );

  // One paid plan exhausted in full, in concurrent batches (the others' numbers are checked above).
  it.each([['pro', PLANS.pro.limits.perMinute]] as const)(
    '%s: admits %d requests in a minute and refuses the next',
    async (plan, perMinute) => {
      const { apiKey } = await t.issueKey(plan);
      const batch = 50;
      for (let sent = 0; sent < perMinute; sent += batch) {
        const statuses = await Promise.all(
          Array.from({ length: Math.min(batch, perMinute - sent) }, () => list(apiKey).then((r) => r.status)),
        );
        expect(statuses.every((status) => status === 200)).toBe(true);
      }
      const refused = await list(apiKey);
      await expectError(refused, 429, 'rate_limited');
      expect(refused.headers.get('x-ratelimit-limit')).toBe(String(perMinute));
    },
    60_000,
  );

  it('N concurrent requests on a key with M remaining admit exactly M', async () => {
    const { apiKey } = await t.issueKey('free');
    const remaining = 15;
    await spend(apiKey, FREE.perMinute - remaining);
    const statuses = await Promise.all(Array.from({ length: 40 }, () => list(apiKey).then((r) => r.status)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(remaining);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - remaining);
  });
});

describe('headers on every response the service produces', () => {
  it('2xx, 400, 404, 405, 410 and 429 carry the key’s limits; 401 carries the anonymous ones', async () => {
    const { apiKey } = await t.issueKey('pro');
    const pro = PLANS.pro.limits.perMinute;
    const created = await t.request('/pets', {
      method: 'POST',
      apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Counted', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    expectRateHeaders(created, pro);
    const listed = await list(apiKey);
    expectRateHeaders(listed, pro);
    expect(Number(listed.headers.get('x-ratelimit-remaining'))).toBe(pro - 2);

    const invalid = await t.request('/pets?limit=0', { apiKey });
    await expectError(invalid, 400);
    expectRateHeaders(invalid, pro);
    const missing = await t.request('/pets/1', { apiKey });
    await expectError(missing, 404);
    expectRateHeaders(missing, pro);
    const badBody = await t.request('/pets', {
      method: 'POST',
      apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect((await expectError(badBody, 400, 'invalid_body')).message).toMatch(/categoryId/);
    expectRateHeaders(badBody, pro);
    const noSuchPath = await t.request('/nothing/here', { apiKey });
    await expectError(noSuchPath, 404, 'not_found');
    expectRateHeaders(noSuchPath, pro);
    const wrongMethod = await t.request('/pets/1', { method: 'PUT', apiKey });
    await expectError(wrongMethod, 405, 'method_not_allowed');
    expectRateHeaders(wrongMethod, pro);
    // Every one of them was counted.
    expect(wrongMethod.headers.get('x-ratelimit-remaining')).toBe(String(pro - 7));

    const unauthenticated = await list();
    await expectError(unauthenticated, 401);
    expectRateHeaders(unauthenticated, ANONYMOUS_LIMITS.perMinute);

    clock().set(Date.UTC(2030, 11, 5));
    const gone = await t.request('/pets/1', { apiKey });
    await expectError(gone, 410);
    expectRateHeaders(gone, pro);
  });
});

describe('callers without a valid key', () => {
  it(`are limited per client IP to ${ANONYMOUS_LIMITS.perMinute} a minute: then 429 instead of 401`, async () => {
    const statuses: number[] = [];
    for (let index = 0; index < ANONYMOUS_LIMITS.perMinute; index++) {
      const response = await t.request('/pets', { apiKey: `ask_guess${index}` });
      statuses.push(response.status);
      expect(response.headers.get('x-ratelimit-remaining')).toBe(
        String(ANONYMOUS_LIMITS.perMinute - index - 1),
      );
    }
    expect(statuses.every((status) => status === 401)).toBe(true);
    const refused = await list();
    expect((await expectError(refused, 429, 'rate_limited')).message).toMatch(/without a valid API key/);
  });

  it('spend the same allowance on unknown paths and methods as on operations', async () => {
    for (let index = 0; index < ANONYMOUS_LIMITS.perMinute; index++) {
      const response = await t.request(index % 2 ? '/pets' : '/no/such/path', { method: 'DELETE' });
      expect(response.status).toBe(index % 2 ? 405 : 404);
      expect(response.headers.get('x-ratelimit-remaining')).toBe(
        String(ANONYMOUS_LIMITS.perMinute - index - 1),
      );
    }
    await expectError(await list(), 429, 'rate_limited');
  });
});

describe('bans', () => {
  it('a key that keeps calling while limited is banned for a growing time, with a distinct code, and the ban lifts by itself', async () => {
    const limits = { perMinute: 3, perDay: 100 };
    const apiKey = await keyWithLimits(limits);
    await spend(apiKey, limits.perMinute);
    for (let index = 1; index < BAN_THRESHOLD; index++)
      await expectError(await list(apiKey), 429, 'rate_limited');
    const banned = await list(apiKey);
    await expectError(banned, 429, 'temporarily_banned');
    expect(banned.headers.get('retry-after')).toBe(String(banDuration(1) / 1000));

    clock().advance(60_000); // a new minute does not lift the ban
    const stillBanned = await list(apiKey);
    await expectError(stillBanned, 429, 'temporarily_banned');
    expect(stillBanned.headers.get('retry-after')).toBe(String((banDuration(1) - 60_000) / 1000));

    clock().set(dayStart() + 10_000 + banDuration(1) + 1_000);
    expect((await list(apiKey)).status).toBe(200);
    await spend(apiKey, limits.perMinute - 1);
    for (let index = 1; index < BAN_THRESHOLD; index++)
      await expectError(await list(apiKey), 429, 'rate_limited');
    const again = await list(apiKey);
    await expectError(again, 429, 'temporarily_banned');
    expect(again.headers.get('retry-after')).toBe(String(banDuration(2) / 1000));
  });
});
