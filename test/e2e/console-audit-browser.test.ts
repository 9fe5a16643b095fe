import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildConsole } from '../../console/build';
import { sessionCookie } from '../../lambda/api/console-cookies';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { type LocalApi, startLocalApi } from '../../local/server';
import { runTool } from '../../tools/cli';
import type { ToolConnection } from '../../tools/connection';
import { DOMAINS_TOOL, PERSONAL_TOKEN_VARIABLE, runDomainsCommand } from '../../tools/domains';
import { connectLocal } from '../../tools/local-store';
import { ProjectAdmin } from '../../tools/project-admin';
import { describeInBrowser, launchChromium } from '../support/chromium';
import { consolePeople, newPerson } from '../support/console-people';
import { CONSOLE_SCREENSHOTS, type ConsolePage, consolePage, DESKTOP } from '../support/console-page';
import { fakeClock } from '../support/fake-clock';

/**
 * Issue 28's Done-when, in Chromium against local mode, no human step: a developer makes a
 * personal token in the Tokens page; the domains tool (in process, ANIMAL_STORE_TOKEN set to it) adds a
 * domain; the owner revokes the token in the page and the tool is refused; the owner's Audit page
 * shows each step with its actor, filters by action, actor and time through the API, loads more
 * by cursor and links the export. A developer is refused the page, with the focus on why, and
 * is offered no Remove on the Domains page (only owners and admins remove domains).
 * axe-core at 1280 and 360 px.
 */

const MINUTE = 60_000;
/** The viewer's zone: half an hour off UTC, so a time shown in UTC by mistake cannot pass. */
const VIEWER_ZONE = 'Asia/Kolkata';
const VIEWER_OFFSET_MS = 330 * MINUTE;

let api: LocalApi;
let buildDir: string;
let connection: ToolConnection;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let steps: ConsolePage;
let origin: string;
let people: ReturnType<typeof consolePeople>;
let clock: ReturnType<typeof fakeClock>;

/** The browser holds this person's session, as after their sign-in (see console-members-browser). */
async function signInAs(secret: string): Promise<void> {
  await browser.context.clearCookies();
  const landing = `${origin}/console/api/test-landing`;
  await page.route(landing, (route) =>
    route.fulfill({ status: 200, headers: { 'Set-Cookie': sessionCookie(secret, 3600) }, body: 'signed in' }),
  );
  await page.goto(landing);
  await page.unroute(landing);
  await page.goto(`${origin}${CONSOLE_PAGE_PATH}`);
  await steps.heading('Overview').waitFor();
}

/** `npm run domains -- …argv` in this process, with the token in its environment. */
async function domainsTool(token: string, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const env = { ...process.env, PORT: String(api.port), [PERSONAL_TOKEN_VARIABLE]: token };
  const code = await runTool(
    DOMAINS_TOOL,
    (args) =>
      runDomainsCommand(args, {
        out: (line) => void (stdout += `${line}\n`),
        endpoint: api.dynamodbEndpoint,
        env,
      }),
    argv,
    (text) => void (stderr += text),
  );
  return { code, stdout, stderr };
}

/** The entries the page shows: action, actor, target, outcome, and the UTC time it states. */
/**
 * Waits until the page shows exactly these actions, in this order: a filter's answer replaces the
 * list as it arrives, so the entries before it may still be there, or the list half drawn.
 */
async function actionsShown(expected: readonly string[]): Promise<void> {
  const wanted = JSON.stringify(expected);
  await page
    .waitForFunction(
      `JSON.stringify([...document.querySelectorAll('li[data-entry-id] h3')].map((h) => h.textContent)) === ${JSON.stringify(wanted)}`,
      undefined,
      { timeout: 15_000 },
    )
    .catch(() => undefined);
}

async function shownEntries() {
  return page.locator('li[data-entry-id]').evaluateAll((items) =>
    items.map((item) => {
      const facts = [...item.querySelectorAll('dd')].map((each) => each.textContent ?? '');
      return {
        action: item.querySelector('h3')?.textContent,
        when: facts[0],
        actor: facts[1],
        target: facts[2],
        outcome: facts[3],
      };
    }),
  );
}

/** A moment as the viewer types it in a `datetime-local` field: their zone's wall time. */
const viewerLocal = (ms: number) => new Date(ms + VIEWER_OFFSET_MS).toISOString().slice(0, 19);

describeInBrowser('the console audit browser test')('the Audit page, in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
    buildDir = mkdtempSync(path.join(os.tmpdir(), 'console-build-'));
    // The service's clock (sessions, tokens, the log's times): moved by the test, never waited for.
    clock = fakeClock(Date.now());
    api = await startLocalApi({
      port: 0,
      dynamodbPort: 0,
      consoleSite: await buildConsole(buildDir),
      customDomains: {},
    });
    origin = `http://localhost:${api.port}`;
    connection = await connectLocal(api.dynamodbEndpoint);
    people = consolePeople({ api, now: clock.now });
    browser = await launchChromium({ viewport: DESKTOP, timezoneId: VIEWER_ZONE, locale: 'en-GB' });
    page = await browser.context.newPage();
    steps = consolePage(page, origin);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    people?.close();
    connection?.close();
    await api?.close();
    clock?.restore();
    rmSync(buildDir, { recursive: true, force: true });
  });

  it('records a token made, used by the domains tool and revoked, each with its actor', async () => {
    const project = `audit-${process.pid}`;
    const domain = `shop-${process.pid}.example.com`;
    await new ProjectAdmin(connection).create(project, 'pro');
    const owner = newPerson('owner');
    const developer = newPerson('developer');
    await people.add(project, owner, 'owner');
    await people.add(project, developer, 'developer');

    // 1. A developer makes a token in the Tokens page (its role: theirs, the form's default).
    await signInAs((await people.signIn(developer, project)).cookie);
    await steps.navigate('Tokens');
    await page.getByLabel('Name').fill('deploys');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.getByRole('textbox', { name: 'Personal access token' }).inputValue();
    expect(token).toMatch(/^pat_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const createdAt = clock.now();

    // 2. The domains tool adds a domain with it.
    clock.advance(MINUTE);
    const added = await domainsTool(token, 'add', domain);
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain(`Added ${domain}`);
    const addedAt = clock.now();

    // 3. The owner revokes it in the page; the tool is refused from then on.
    clock.advance(MINUTE);
    await signInAs((await people.signIn(owner, project)).cookie);
    await steps.navigate('Tokens');
    await page.getByRole('button', { name: 'Revoke token deploys' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await page.locator('#announcer', { hasText: 'Token deploys revoked' }).waitFor();
    const refused = await domainsTool(token, 'add', `www.${domain}`);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/revoked/i);

    // 4. The owner's Audit page: each step, newest first, with its actor.
    await steps.navigate('Audit');
    // (ICU may name the zone by its older name, Asia/Calcutta.)
    await page.getByText(/Times are in your time zone \(Asia\/(Kolkata|Calcutta)\)/).waitFor();
    const entries = page.locator('li[data-entry-id]');
    await entries.first().waitFor();
    const tokenActor = `token deploys (`;
    const shown = await shownEntries();
    // A refused call with a revoked token has no access, so no actor: it is not an entry.
    expect(shown.map((entry) => entry.action)).toEqual(['token.revoke', 'domain.add', 'token.create']);
    expect(shown[0]).toMatchObject({ actor: owner.email, outcome: 'Success' });
    expect(shown[1]).toMatchObject({ target: domain, outcome: 'Success' });
    expect(shown[1]?.actor).toContain(tokenActor);
    expect(shown[1]?.actor).toContain(`of ${developer.email}`);
    expect(shown[2]).toMatchObject({ actor: developer.email, outcome: 'Success' });
    // The time in the viewer's zone, and in UTC beside it.
    const addedUtc = new Date(addedAt).toISOString().replace('T', ' ').slice(0, 19);
    expect(shown[1]?.when).toContain(`(${addedUtc} UTC)`);
    expect(shown[1]?.when).toContain(viewerLocal(addedAt).slice(11, 16));
    await steps.check('audit-owner');

    // Filters go to the API: by action, by actor (a member's email takes in their token's), by time.
    await page.getByLabel('Action').selectOption('domain.add');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('li[data-entry-id]', { hasText: 'token.revoke' }).waitFor({ state: 'detached' });
    await actionsShown(['domain.add']);
    expect((await shownEntries()).map((entry) => entry.action)).toEqual(['domain.add']);
    await page.getByLabel('Action').selectOption('');
    await page.getByLabel('Actor').fill(developer.email);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await entries.filter({ hasText: 'token.revoke' }).waitFor({ state: 'detached' });
    await actionsShown(['domain.add', 'token.create']);
    expect((await shownEntries()).map((entry) => entry.action)).toEqual(['domain.add', 'token.create']);
    await page.getByLabel('Actor').fill('');
    await page.getByLabel('From').fill(viewerLocal(createdAt + MINUTE / 2));
    await page.getByLabel('Until').fill(viewerLocal(addedAt + MINUTE / 2));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await entries.filter({ hasText: 'token.create' }).waitFor({ state: 'detached' });
    await actionsShown(['domain.add']);
    expect((await shownEntries()).map((entry) => entry.action)).toEqual(['domain.add']);

    // The export: the same filters, as JSON Lines, with the browser's session.
    const href = (await page.getByRole('link', { name: 'Export (JSON Lines)' }).getAttribute('href')) ?? '';
    expect(href).toMatch(/^api\/audit\/export\?since=.*&until=/);
    const exported = await page.evaluate(async (address) => {
      const response = await fetch(address);
      return { type: response.headers.get('content-type'), text: await response.text() };
    }, href);
    expect(exported.type).toMatch(/^application\/jsonl/);
    const lines = exported.text.trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { action: string }).action)).toEqual(['domain.add']);

    // An invalid filter is refused, and the refusal takes the focus.
    await page.getByLabel('From').fill('');
    await page.getByLabel('Until').fill('');
    await page.getByLabel('Actor').fill('x'.repeat(401));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#audit-refusal').waitFor();
    expect(await steps.focused()).toMatchObject({
      id: 'audit-refusal',
      text: 'actor must be 1 to 400 characters.',
    });
    await steps.check('audit-refused-filter');

    // Load more follows the cursor: pages of one entry here (the page's own size is the API's default).
    const listCalls = /\/console\/api\/audit(\?|$)/;
    await page.route(listCalls, (route) => {
      const address = new URL(route.request().url());
      address.searchParams.set('limit', '1');
      return route.continue({ url: address.toString() });
    });
    await page.getByLabel('Actor').fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#audit-refusal').waitFor({ state: 'detached' });
    await entries.nth(1).waitFor({ state: 'detached' });
    await actionsShown(['token.revoke']);
    expect((await shownEntries()).map((entry) => entry.action)).toEqual(['token.revoke']);
    await page.getByRole('button', { name: 'Load more' }).click();
    await entries.nth(1).waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await entries.nth(2).waitFor();
    await actionsShown(['token.revoke', 'domain.add', 'token.create']);
    expect((await shownEntries()).map((entry) => entry.action)).toEqual([
      'token.revoke',
      'domain.add',
      'token.create',
    ]);
    await page.unroute(listCalls);

    // A developer has no Audit link, and one who goes there anyway is told why, with the focus.
    await signInAs((await people.signIn(developer, project)).cookie);
    const navigation = page.getByRole('navigation', { name: 'Console' });
    await navigation.getByRole('link', { name: 'Tokens' }).waitFor();
    expect(await navigation.getByRole('link', { name: 'Audit' }).count()).toBe(0);
    await page.goto(`${origin}${CONSOLE_PAGE_PATH}#audit`);
    await page.locator('#audit-refusal').waitFor();
    expect((await steps.focused()).id).toBe('audit-refusal');
    expect(await page.locator('li[data-entry-id]').count()).toBe(0);
    await steps.check('audit-developer-refused');

    // On the Domains page the developer may verify the domain their token added, not remove it.
    await steps.navigate('Domains');
    const card = page.locator(`li[data-domain="${domain}"]`);
    await card.waitFor();
    expect(await card.getByRole('button', { name: /^(Re-)?[Vv]erify$/ }).count()).toBe(1);
    expect(await card.getByRole('button', { name: `Actions for ${domain}` }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove…' }).count()).toBe(0);
  }, 180_000);
});
