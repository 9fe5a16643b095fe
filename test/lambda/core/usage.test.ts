import { issueConsoleToken, newUsageId, type ProjectRecord } from '../../../lambda/core/project';
import { PLANS } from '../../../lambda/core/plans';
import { projectIdentity, RateLimiter } from '../../../lambda/core/rate-limiter';
import { projectOverview } from '../../../lambda/core/usage';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The console's overview reads the very counter the limiter counts a project's API calls on:
 * what the limiter admitted is what the owner sees, by UTC minute and day.
 */
const MINUTE = 60_000;
const START = Date.UTC(2026, 10, 23, 9, 41, 10);
let store: TestStore;
let counters: RateLimitStore;
beforeAll(async () => {
  store = await startTestStore();
  counters = new RateLimitStore(store.documents, LOCAL_TABLE_NAMES.rateLimits);
});
afterAll(() => store.close());

let serial = 0;
function project(plan: ProjectRecord['plan']): ProjectRecord {
  serial += 1;
  return {
    name: `usage-${serial}`,
    plan,
    createdAt: new Date(START).toISOString(),
    consoleTokenHash: issueConsoleToken(`usage-${serial}`).hash,
    consoleTokenIssuedAt: new Date(START).toISOString(),
    usageId: newUsageId(),
  };
}

async function admit(name: string, plan: 'pro', atMs: number, times: number) {
  const limiter = new RateLimiter(counters, () => atMs);
  for (let i = 0; i < times; i++) await limiter.admit(projectIdentity(name), PLANS[plan].limits);
}

test("shows the project's API calls admitted this minute and today, against its plan's limits", async () => {
  const pro = project('pro');
  await admit(pro.name, 'pro', START, 3);
  const overview = await projectOverview(pro, counters, START + 1_000, 'https://x/v1');
  expect(overview.limits).toEqual(PLANS.pro.limits);
  expect(overview.usage.minute).toEqual({
    used: 3,
    limit: PLANS.pro.limits.perMinute,
    resetsAt: '2026-11-23T09:42:00.000Z',
  });
  expect(overview.usage.day).toEqual({
    used: 3,
    limit: PLANS.pro.limits.perDay,
    resetsAt: '2026-11-24T00:00:00.000Z',
  });
  expect(overview.customDomains).toEqual({ allowed: true });
});

test('a new minute starts from zero while the day keeps counting; another project counts apart', async () => {
  const pro = project('pro');
  const other = project('pro');
  await admit(pro.name, 'pro', START, 2);
  await admit(other.name, 'pro', START, 5);
  const later = await projectOverview(pro, counters, START + 2 * MINUTE, 'https://x/v1');
  expect([later.usage.minute.used, later.usage.day.used]).toEqual([0, 2]);
  await admit(pro.name, 'pro', START + 2 * MINUTE, 1);
  const after = await projectOverview(pro, counters, START + 2 * MINUTE, 'https://x/v1');
  expect([after.usage.minute.used, after.usage.day.used]).toEqual([1, 3]);
});

test('a project never called shows nothing used; a Free one is told custom domains need Pro', async () => {
  const free = project('free');
  const overview = await projectOverview(free, counters, START, 'https://x/v1');
  expect([overview.usage.minute.used, overview.usage.day.used]).toEqual([0, 0]);
  expect(overview.customDomains).toEqual({
    allowed: false,
    reason: 'Custom domains need a paid plan (Pro or above); this project is on the Free plan.',
  });
});
