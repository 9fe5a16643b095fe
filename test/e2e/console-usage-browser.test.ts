import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { UsageHistory } from '../../console/src/contract';
import { count } from '../../console/src/format';
import { dayLabel, hourLabel, usageCsv, usageJson, usageRows } from '../../console/src/usage-data';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local/embedded-dynamodb';
import { type LocalApi, startLocalApi } from '../../local/server';
import type { ToolConnection } from '../../tools/connection';
import { connectLocal } from '../../tools/local-store';
import { KeyAdmin } from '../../tools/key-admin';
import { ProjectAdmin } from '../../tools/project-admin';
import { ROLE_CACHE_MS } from '../../lambda/core/members';
import { runProjectsCommand } from '../../tools/projects';
import {
  describeInBrowser,
  launchChromium,
  screenshotToLookAt,
  seriousAxeViolations,
} from '../support/chromium';
import { consolePeople, newPerson } from '../support/console-people';
import { type ConsolePage, consolePage, DESKTOP, NARROW } from '../support/console-page';
import { fakeClock } from '../support/fake-clock';
import { type StoreRelay, startStoreRelay } from '../support/store-relay';
import { seedUsage } from '../support/usage-seed';
import { sharedConsoleBuild } from '../support/console-build';

/**
 * The console's Usage page in Chromium against local mode, with the service clock in the
 * test's hand and the browser in a viewer's zone (Colombo, UTC+05:30, so a UTC hour starts at
 * half past). A project with a month of usage in the store: charts and tables, whose numbers are
 * the console API's, axe-core at both widths and the pictures in doc/images/ (SCREENSHOTS=1); the exports. A
 * project with a known mix of real requests across an hour boundary: the page shows exactly
 * the admitted counts, as do the console API and the projects tool. The page's refusals: the store
 * unreachable (with and without figures shown), the session ended, the person removed from the
 * project (the console's 401 `membership_ended`, shown with the focus). The store sits behind a relay the test cuts.
 */

const START_MS = Date.parse('2031-03-04T05:58:30.000Z');
const VIEWER = { timezoneId: 'Asia/Colombo', locale: 'en-GB' };
const WORDS = { timeZone: VIEWER.timezoneId, locale: VIEWER.locale };
const PICTURES = path.resolve(__dirname, '../../doc/images');

let clock: ReturnType<typeof fakeClock>;
let store: EmbeddedDynamoDb;
let relay: StoreRelay;
let api: LocalApi;
let connection: ToolConnection;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let steps: ConsolePage;
let origin: string;
/** What the page's CSP refused: nothing, or the page is not the one people get. */
const refusedByCsp: string[] = [];

/** The console API's answer to a tool with the project's console token. */
async function consoleApi(
  token: string,
  apiPath: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}/console/api${apiPath}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function historyOf(token: string): Promise<UsageHistory> {
  const answer = await consoleApi(token, '/usage/history');
  expect(answer.status).toBe(200);
  return answer.body as unknown as UsageHistory;
}

/** A table's rows as the page shows them: the hour or day's `datetime`, its words, and every number cell. */
async function tableOf(span: 'hours' | 'days'): Promise<{ start: string; label: string; cells: string[] }[]> {
  return page.locator(`#usage-${span}-table tbody tr`).evaluateAll((rows) =>
    rows.map((row) => ({
      start: row.querySelector('time')?.getAttribute('datetime') ?? '',
      label: row.querySelector('time')?.textContent ?? '',
      cells: [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? ''),
    })),
  );
}

/** The rows the page must show for a window of the API's answer. */
function expectedTable(history: UsageHistory, span: 'hours' | 'days') {
  return usageRows(history[span], history.operations).map((row) => ({
    start: row.start,
    label: span === 'hours' ? hourLabel(row.start, WORDS) : dayLabel(row.start, WORDS),
    cells: [...row.admitted, row.admittedTotal, row.refusedTotal].map(count),
  }));
}

/**
 * axe-core at 1280 and 360 px (no sideways scroll at 360), and the pictures of doc/console.md when
 * the run is asked for them (`SCREENSHOTS=1`): checked in, so a plain run leaves them as they are.
 */
async function checkAndPicture(name: string): Promise<void> {
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshotToLookAt(page, { path: path.join(PICTURES, `${name}.png`), fullPage: true });
  await page.setViewportSize(NARROW);
  try {
    await page.locator('.usage-canvas canvas, .usage-table').first().waitFor();
    // A chart takes the new width when its ResizeObserver runs, at a frame after the resize, not
    // before the next read (seen once in a whole run): wait for the page to fit, else say by how much.
    await page
      .waitForFunction(`document.documentElement.scrollWidth <= ${NARROW.width}`, undefined, {
        timeout: 20_000,
      })
      .catch(() => undefined);
    expect(await steps.inPage<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      NARROW.width,
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshotToLookAt(page, { path: path.join(PICTURES, `${name}-360.png`), fullPage: true });
  } finally {
    await page.setViewportSize(DESKTOP);
  }
}

/** Admitted and refused calls per UTC hour (its ISO start) and operation, as the client saw them. */
type Tally = Map<string, { admitted: Record<string, number>; refused: Record<string, number> }>;

/** Sends one call of the project's API with its key, as a client does, and tallies its answer. */
async function send(
  tally: Tally,
  apiKey: string,
  operation: string,
  request: { method?: string; path: string; body?: unknown },
): Promise<Response> {
  const response = await fetch(`${api.baseUrl}${request.path}`, {
    method: request.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${apiKey}`,
      ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  const hour = new Date(Math.floor(clock.now() / 3_600_000) * 3_600_000).toISOString();
  const counts = tally.get(hour) ?? { admitted: {}, refused: {} };
  const kind = response.status === 429 ? counts.refused : response.ok ? counts.admitted : undefined;
  if (!kind) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
  kind[operation] = (kind[operation] ?? 0) + 1;
  tally.set(hour, counts);
  return response;
}

describeInBrowser('the console usage browser tests')('the Usage page in Chromium', () => {
  beforeAll(async () => {
    clock = fakeClock(START_MS);
    store = await startEmbeddedDynamoDb({ port: 0 });
    relay = await startStoreRelay(store.port);
    api = await startLocalApi({
      port: 0,
      dynamodbEndpoint: relay.endpoint,
      apiKeyCacheSeconds: 0,
      consoleSite: await sharedConsoleBuild(),
      customDomains: {},
    });
    origin = `http://localhost:${api.port}`;
    connection = await connectLocal(store.endpoint);
    browser = await launchChromium({ viewport: DESKTOP, ...VIEWER });
    page = await browser.context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByCsp.push(message.text());
    });
    await page.clock.setFixedTime(new Date(START_MS));
    steps = consolePage(page, origin);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    connection?.close();
    await api?.close();
    await relay?.close();
    await store?.close();
    clock?.restore();
    // A hang's deadline: once, in CI with coverage on, these closes ran past jest's 30 s.
  }, 120_000);

  describe('a project with a month of usage', () => {
    const project = 'acme-pets';
    let token: string;
    let history: UsageHistory;

    beforeAll(async () => {
      token = (await new ProjectAdmin(connection).create(project, 'free')).consoleToken;
      const { operations, limits } = await historyOf(token);
      await seedUsage(store.endpoint, project, operations, limits.perDay, clock.now());
      history = await historyOf(token);
      await steps.signIn(token);
      await steps.navigate('Usage');
    }, 60_000);

    it("draws the last 24 hours and 30 days as charts, in the viewer's zone, with when they were read", async () => {
      await page.locator('.usage-canvas canvas').nth(1).waitFor();
      expect(await page.locator('#usage-zone').textContent()).toContain('Asia/Colombo (UTC+05:30)');
      expect(await page.locator('#usage-history-read time').getAttribute('datetime')).toBe(history.readAt);
      expect(await page.locator('#usage-day').textContent()).toMatch(/^Today \(UTC\): [\d,]+ of 1,000 calls/);
      const charts = page.getByRole('img');
      expect(await charts.count()).toBe(2);
      expect(await charts.nth(0).getAttribute('aria-label')).toMatch(/^Requests per hour, the last 24 hours/);
      expect(await charts.nth(1).getAttribute('aria-label')).toMatch(
        /^Requests per UTC day, the last 30 days.*Per-day limit: 1,000 \(the dashed line\)/,
      );
      expect(await page.getByRole('button', { name: 'Charts' }).getAttribute('aria-pressed')).toBe('true');
      await checkAndPicture('console-usage-charts');
      expect(refusedByCsp).toEqual([]);
    }, 60_000);

    it("shows the same numbers as tables, each hour in the viewer's zone and each day in UTC: exactly the API's", async () => {
      await page.getByRole('button', { name: 'Tables' }).click();
      await page.locator('#usage-days-table').waitFor();
      expect(await page.getByRole('button', { name: 'Tables' }).getAttribute('aria-pressed')).toBe('true');
      expect(await tableOf('hours')).toEqual(expectedTable(history, 'hours'));
      expect(await tableOf('days')).toEqual(expectedTable(history, 'days'));
      // Colombo is 5:30 ahead: the UTC hour of 05:00 is 10:30 there.
      expect((await tableOf('hours')).at(-1)?.label).toBe('4 Mar, 10:30');
      expect(await page.locator('#usage-hours-table th[scope="col"]').allTextContents()).toEqual([
        'Hour from',
        ...history.operations,
        'Admitted',
        'Refused (at least)',
      ]);
      await checkAndPicture('console-usage-tables');
      expect(refusedByCsp).toEqual([]);
    }, 60_000);

    it('exports the numbers as CSV and as JSON, made in the page', async () => {
      const csv = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download CSV' }).click();
      const csvFile = await csv;
      expect(csvFile.suggestedFilename()).toBe(`usage-${project}-2031-03-04T055830Z.csv`);
      expect(readFileSync(await csvFile.path(), 'utf8')).toBe(usageCsv(history));

      const json = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download JSON' }).click();
      const jsonFile = await json;
      expect(jsonFile.suggestedFilename()).toBe(`usage-${project}-2031-03-04T055830Z.json`);
      expect(readFileSync(await jsonFile.path(), 'utf8')).toBe(usageJson(project, history));
      expect(refusedByCsp).toEqual([]);
    }, 60_000);

    it('says so when the store cannot be reached, with the focus, and keeps the figures and when they were read', async () => {
      relay.forwardTo(undefined);
      try {
        const refused = await consoleApi(token, '/usage/history');
        expect(refused).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
        const failedAt = new Date(START_MS + 5_000);
        await page.clock.setFixedTime(failedAt);
        await page.getByRole('button', { name: 'Refresh' }).click();
        const failure = page.locator('#usage-history-error');
        await failure.waitFor();
        expect(await steps.focused()).toEqual({
          id: 'usage-history-error',
          text: expect.stringContaining(`: ${refused.body.message as string}`),
        });
        expect(await failure.locator('time').first().getAttribute('datetime')).toBe(failedAt.toISOString());
        expect(await failure.locator('time').nth(1).getAttribute('datetime')).toBe(history.readAt);
        expect(await tableOf('days')).toEqual(expectedTable(history, 'days'));
        expect(await seriousAxeViolations(page)).toEqual([]);
      } finally {
        relay.forwardTo(store.port);
      }
    }, 60_000);

    it("says so when the console's allowance for the minute is spent, with the focus", async () => {
      let spent: { status: number; body: Record<string, unknown> } | undefined;
      // The page's own reads count too: a tool spends what is left of this minute.
      for (let call = 0; call <= history.limits.perMinute && !spent; call += 1) {
        const answer = await consoleApi(token, '/usage');
        if (answer.status !== 200) spent = answer;
      }
      expect(spent).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
      await page.getByRole('button', { name: 'Refresh' }).click();
      const failure = page.locator('#usage-history-error', { hasText: spent?.body.message as string });
      await failure.waitFor();
      expect((await steps.focused()).id).toBe('usage-history-error');
      // The next minute, the page reads again.
      clock.advance(60_000);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await failure.waitFor({ state: 'detached' });
      expect(await page.locator('#usage-history-read time').getAttribute('datetime')).toBe(
        new Date(clock.now()).toISOString(),
      );
    }, 60_000);

    it('goes back to sign-in, saying why, when the session has ended', async () => {
      token = await new ProjectAdmin(connection).rotateConsoleToken(project);
      const ended = await fetch(`${origin}/console/api/usage/history`, {
        headers: {
          Cookie: `__Host-animal-store-session=${(await browser.context.cookies(origin))[0]?.value}`,
        },
      });
      const body = (await ended.json()) as { code: string; message: string };
      expect({ status: ended.status, code: body.code }).toEqual({ status: 401, code: 'session_ended' });
      await page.getByRole('button', { name: 'Refresh' }).click();
      await steps.heading('Sign in to the console').waitFor();
      expect(await page.locator('.notice').textContent()).toBe(body.message);
      expect(await steps.focused()).toEqual({ id: '', text: 'Sign in to the console' });
    }, 60_000);

    it('says so with the focus when the first read fails, and reads again on Try again', async () => {
      await steps.signIn(token);
      relay.forwardTo(undefined);
      try {
        await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Usage' }).click();
        const failure = page.locator('#usage-history-error');
        await failure.waitFor();
        // Nothing else to read on the page: the reason has the focus rather than the heading.
        expect((await steps.focused()).id).toBe('usage-history-error');
        expect(await failure.textContent()).toMatch(/^Usage could not be read at [^:]+:\d\d:\d\d: .+\.$/);
        expect(await seriousAxeViolations(page)).toEqual([]);
      } finally {
        relay.forwardTo(store.port);
      }
      await page.getByRole('button', { name: 'Try again' }).click();
      await page.locator('.usage-canvas canvas').nth(1).waitFor();
      expect(await page.locator('#usage-history-error').count()).toBe(0);
    }, 60_000);
  });

  describe('a project with a known mix of requests across an hour boundary', () => {
    const project = 'mix-pets';
    const tally: Tally = new Map();
    let token: string;
    let apiKey: string;

    beforeAll(async () => {
      // An hour after the month's project, 40 s before the next hour.
      clock.set(Date.parse('2031-03-04T06:59:20.000Z'));
      await page.clock.setFixedTime(new Date(clock.now()));
      token = (await new ProjectAdmin(connection).create(project, 'free')).consoleToken;
      apiKey = (await new KeyAdmin(connection).create(project, 'mix')).apiKey;
    }, 60_000);

    it('shows exactly the admitted counts the API returns, and the refused ones once written', async () => {
      for (let call = 0; call < 3; call += 1) await send(tally, apiKey, 'listPets', { path: '/pets' });
      for (let call = 0; call < 2; call += 1) {
        const body = { name: `mix ${call}`, categoryId: 1 };
        await send(tally, apiKey, 'createPet', { method: 'POST', path: '/pets', body });
      }
      await send(tally, apiKey, 'getOpenApi', { path: '/openapi.json' });

      // Across the hour: 07:00:30.
      clock.advance(70_000);
      for (let call = 0; call < 2; call += 1) await send(tally, apiKey, 'listPets', { path: '/pets' });
      for (let call = 0; call < 4; call += 1)
        await send(tally, apiKey, 'getOpenApi', { path: '/openapi.json' });
      // The rest of the minute's 60, then three refused.
      let refused = 0;
      while (refused < 3) {
        const answer = await send(tally, apiKey, 'listPets', { path: '/pets?status=available' });
        if (answer.status === 429) refused += 1;
      }
      // Refused calls are written with the project's next counted call, a minute on at most.
      clock.advance(61_000);
      await send(tally, apiKey, 'getOpenApi', { path: '/openapi.json' });

      const history = await historyOf(token);
      const [before, after] = ['2031-03-04T06:00:00.000Z', '2031-03-04T07:00:00.000Z'];
      const bucketOf = (start: string) => history.hours.find((bucket) => bucket.start === start);
      expect({ before: bucketOf(before), after: bucketOf(after) }).toEqual({
        before: { start: before, ...tally.get(before) },
        after: { start: after, ...tally.get(after) },
      });
      expect(tally.get(after)?.refused).toEqual({ listPets: 3 });
      // The projects tool reads the very same figures (its clock is the service's).
      const toolLines: string[] = [];
      await runProjectsCommand(['usage', project, '--json'], {
        out: (line) => toolLines.push(line),
        endpoint: store.endpoint,
        env: {},
      });
      expect(JSON.parse(toolLines[0] ?? '')).toEqual({ project, ...history });

      await page.clock.setFixedTime(new Date(clock.now()));
      await steps.signIn(token);
      await steps.navigate('Usage');
      await page.getByRole('button', { name: 'Tables' }).click();
      await page.locator('#usage-hours-table').waitFor();
      expect(await tableOf('hours')).toEqual(expectedTable(history, 'hours'));
      expect(await tableOf('days')).toEqual(expectedTable(history, 'days'));
      const shown = (await tableOf('hours')).slice(-2).map((row) => [row.start, row.cells]);
      const admittedOf = (start: string, operation: string) => tally.get(start)?.admitted[operation] ?? 0;
      expect(shown).toEqual(
        [before, after].map((start) => {
          const admitted = history.operations.map((operation) => admittedOf(start, operation));
          const all = admitted.reduce((sum, value) => sum + value, 0);
          const refusedAll = Object.values(tally.get(start)?.refused ?? {}).reduce(
            (sum, value) => sum + value,
            0,
          );
          return [start, [...admitted, all, refusedAll].map(count)];
        }),
      );
    }, 120_000);
  });

  describe('a person who is no longer a member of the project', () => {
    const project = 'left-pets';

    it('is sent back to sign-in from the Usage page and told why', async () => {
      const people = consolePeople({ api: { dynamodbEndpoint: store.endpoint }, now: clock.now });
      try {
        await new ProjectAdmin(connection).create(project, 'free');
        const [owner, leaver] = [newPerson('owner'), newPerson('leaver')];
        await people.add(project, owner, 'owner');
        await people.add(project, leaver, 'viewer');
        const { cookie } = await people.signIn(leaver, project);
        // The browser holds the session as after the OpenID sign-in: set by an answer's Set-Cookie.
        await steps.signInAs(cookie);
        await steps.navigate('Usage');
        await page.locator('.usage-canvas canvas').nth(1).waitFor();

        await people.members.remove(project, leaver, 'platform');
        // The console may believe the role for ROLE_CACHE_MS, and no longer.
        clock.advance(ROLE_CACHE_MS);
        const answer = page.waitForResponse((response) =>
          response.url().endsWith('/console/api/usage/history'),
        );
        await page.getByRole('button', { name: 'Refresh' }).click();
        const refused = await answer;
        const body = (await refused.json()) as { code: string; message: string; status: number };
        expect({ status: refused.status(), code: body.code }).toEqual({
          status: 401,
          code: 'membership_ended',
        });
        // The page goes back to sign-in, its heading focused and the reason in the status
        // region below it (read out); no figure stays shown.
        await steps.heading('Sign in to the console').waitFor();
        expect(await page.getByRole('status').filter({ hasText: body.message }).count()).toBe(1);
        expect((await steps.focused()).text).toBe('Sign in to the console');
        expect(await page.locator('.usage-canvas').count()).toBe(0);
        expect(await seriousAxeViolations(page)).toEqual([]);
      } finally {
        people.close();
      }
    }, 120_000);
  });
});
