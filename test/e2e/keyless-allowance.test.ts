import { PLANS, PREFLIGHT_LIMITS } from '../../lambda/core/plans';
import { BAN_THRESHOLD } from '../../lambda/core/rate-limiter';
import { clockInADayOfItsOwn } from '../support/fake-clock';
import { checkRawResponse, rawRequest, type RawResponse } from '../support/raw-http';
import { startTestApi, type TestApi } from '../support/test-api';

/**
 * No request without a valid key changes a project's allowance or ban, over HTTP against
 * local mode and its embedded store: a stranger flooding a project's address with
 * preflights from its (public) allowed origin spends only its own per-client allowance,
 * and a key that keeps calling while its project is limited is banned alone.
 */

let t: TestApi;
let origin: string;
/** Each test starts at the top of its own UTC day, so no two share a rate-limit window. */
const { clock, dayStart } = clockInADayOfItsOwn(Date.UTC(2031, 0, 1));

beforeAll(async () => {
  t = await startTestApi();
  origin = new URL(t.baseUrl).origin;
});
afterAll(() => t.close());

const APP = 'https://app.example.com';
const FREE = PLANS.free.limits;

/** A Free project that allows APP, with `keys` keys (made before any request, so no cache holds the old record). */
async function freeProject(keys: number) {
  const project = await t.createProject('free');
  await t.projects.setAllowedOrigins(project.name, [APP]);
  const apiKeys: string[] = [];
  for (let index = 0; index < keys; index++)
    apiKeys.push((await t.issueKey({ project: project.name })).apiKey);
  return { apiKeys, host: `${project.name}.localhost:${new URL(origin).port}` };
}

async function send(
  host: string,
  method: string,
  headers: [string, string][],
  from?: string,
): Promise<RawResponse> {
  const request = {
    method,
    path: '/v1/pets',
    headers: [['Host', host], ...headers] as [string, string][],
    ...(from === undefined ? {} : { localAddress: from }),
  };
  const response = await rawRequest(origin, request);
  await checkRawResponse(origin, request, response);
  return response;
}

/** A preflight as a browser on APP sends it, which anyone can forge. */
const preflight = (host: string, from?: string) =>
  send(
    host,
    'OPTIONS',
    [
      ['Origin', APP],
      ['Access-Control-Request-Method', 'GET'],
      ['Access-Control-Request-Headers', 'authorization'],
    ],
    from,
  );

const list = (host: string, apiKey: string) => send(host, 'GET', [['Authorization', `Bearer ${apiKey}`]]);

const codeOf = (response: RawResponse) => (JSON.parse(response.text) as { code: string }).code;
const remaining = (response: RawResponse) => response.headers['x-ratelimit-remaining'];

describe('preflights are counted per client, never on the project', () => {
  it("a flood of forged-Origin preflights past the Free minute from one client leaves the project's Remaining and every key untouched", async () => {
    const { apiKeys, host } = await freeProject(3);
    const statuses = new Set<number>();
    // One more than the project's whole Free minute: had preflights been counted on it, it would be spent.
    for (let sent = 0; sent <= FREE.perMinute; sent++) statuses.add((await preflight(host)).status);
    // Past the Free minute, and the page's browsers are still answered.
    expect([...statuses]).toEqual([204]);
    // Each key is admitted, with the project's whole minute and day left but for the keyed calls themselves.
    for (const [index, apiKey] of apiKeys.entries()) {
      const response = await list(host, apiKey);
      expect([response.status, remaining(response), response.headers.ratelimit]).toEqual([
        200,
        String(FREE.perMinute - index - 1),
        `"minute";r=${FREE.perMinute - index - 1};t=50, "day";r=${FREE.perDay - index - 1};t=${86_400 - 10}`,
      ]);
    }
  });

  it('refuses preflights past their own per-client allowance with 429 for that client only, then bans it alone', async () => {
    const { apiKeys, host } = await freeProject(1);
    const [apiKey] = apiKeys as [string];
    const flooder = '127.0.0.2';
    for (let sent = 1; sent <= PREFLIGHT_LIMITS.perMinute; sent++) {
      const response = await preflight(host, flooder);
      expect([response.status, remaining(response)]).toEqual([
        204,
        String(PREFLIGHT_LIMITS.perMinute - sent),
      ]);
    }
    const refused = await preflight(host, flooder);
    expect([refused.status, codeOf(refused), refused.headers['x-ratelimit-limit']]).toEqual([
      429,
      'rate_limited',
      String(PREFLIGHT_LIMITS.perMinute),
    ]);
    expect(refused.headers['retry-after']).toBe('50');
    // Another client's page, and the project's key, are not limited by it.
    const neighbour = await preflight(host, '127.0.0.3');
    expect([neighbour.status, remaining(neighbour)]).toEqual([204, String(PREFLIGHT_LIMITS.perMinute - 1)]);
    const keyed = await list(host, apiKey);
    expect([keyed.status, remaining(keyed)]).toEqual([200, String(FREE.perMinute - 1)]);

    // Keeping on bans the flooding client, and nobody else.
    for (let index = 2; index < BAN_THRESHOLD; index++)
      expect((await preflight(host, flooder)).status).toBe(429);
    const banned = await preflight(host, flooder);
    expect([banned.status, codeOf(banned)]).toEqual([429, 'temporarily_banned']);
    expect((await preflight(host, '127.0.0.3')).status).toBe(204);
    const after = await list(host, apiKey);
    expect([after.status, remaining(after)]).toEqual([200, String(FREE.perMinute - 2)]);
  });
});

describe('bans fall on the key, the allowance stays the project’s', () => {
  it('bans the key that keeps calling while limited; another key of the project sees the 429 but no ban', async () => {
    const { apiKeys, host } = await freeProject(2);
    const [noisy, quiet] = apiKeys as [string, string];
    for (let sent = 0; sent < FREE.perMinute; sent++) expect((await list(host, noisy)).status).toBe(200);
    // Both keys share the spent minute: switching keys does not escape it.
    for (let index = 1; index < BAN_THRESHOLD; index++) {
      expect(codeOf(await list(host, noisy))).toBe('rate_limited');
      if (index < BAN_THRESHOLD / 2) expect(codeOf(await list(host, quiet))).toBe('rate_limited');
    }
    const banned = await list(host, noisy);
    expect([banned.status, codeOf(banned)]).toEqual([429, 'temporarily_banned']);
    const limited = await list(host, quiet);
    expect([limited.status, codeOf(limited)]).toEqual([429, 'rate_limited']);

    clock().set(dayStart() + 60_000);
    const next = await list(host, quiet);
    expect([next.status, remaining(next)]).toEqual([200, String(FREE.perMinute - 1)]);
    expect(codeOf(await list(host, noisy))).toBe('temporarily_banned');
  });
});
