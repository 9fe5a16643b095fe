import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { PLANS } from '../../lambda/core/plans';
import { ownershipToken, projectTarget } from '../../lambda/core/custom-domains/project-target';
import { SANDBOX_RECORDS_PATH } from '../../local/console-gateway';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { type LocalApi, startLocalApi } from '../../local/server';
import type { ToolConnection } from '../../tools/connection';
import { connectLocal } from '../../tools/local-store';
import { ProjectAdmin } from '../../tools/project-admin';
import { describeInBrowser, launchChromium } from '../support/chromium';
import {
  CONSOLE_SCREENSHOTS,
  type ConsolePage,
  consolePage,
  curlPets,
  DESKTOP,
} from '../support/console-page';
import { sharedConsoleBuild } from '../support/console-build';

/**
 * The console as a person uses it, in Debian's Chromium against local mode with the sandbox
 * DNS: sign in, keys (one used with curl, then revoked), domains from Add to an issued
 * certificate, a redirect, a removal through the dialog, sign-out, and a Free project. Every
 * page gets axe-core (no serious or critical violation) and screenshots at desktop width and
 * at 360 px, into test-output/console/. Nothing is mocked: the page calls the real console API.
 * What the page tells the tenant when the service refuses, and where the focus goes, is
 * console-feedback-browser.test.ts.
 */

const SESSION_COOKIE = '__Host-animal-store-session';
const SHOP = 'shop.acme-pets.test';
const API_DOMAIN = 'api.acme-pets.test';
const WWW = 'www.acme-pets.test';

let api: LocalApi;
let connection: ToolConnection;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let steps: ConsolePage;
/** The page's origin: localhost, as a person types it (a secure context, so the `__Host-` cookie is kept). */
let origin: string;

/** Each project's target id, as the projects tool made it. */
const targetIds = new Map<string, string>();

/** A project made by the projects tool's code, with its console token. */
async function createProject(plan: 'free' | 'pro', name: string): Promise<string> {
  const { record, consoleToken } = await new ProjectAdmin(connection).create(name, plan);
  targetIds.set(name, record.targetId ?? '');
  return consoleToken;
}

/** Creates a record in the sandbox DNS as the token's project, as `npm run domains -- sandbox-record` does. */
async function sandboxRecord(token: string, name: string, type: string, value: string): Promise<void> {
  const response = await fetch(`${origin}${SANDBOX_RECORDS_PATH}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, type, value }),
  });
  if (response.status !== 201) throw new Error(`sandbox record: ${response.status} ${await response.text()}`);
}

const inPage = <T = unknown>(expression: string) => steps.inPage<T>(expression);
const heading = (name: string) => steps.heading(name);
const card = (domain: string) => steps.card(domain);
const check = (name: string) => steps.check(name);
const signIn = (token: string) => steps.signIn(token);
const navigate = (label: string) => steps.navigate(label);

describeInBrowser('the console browser tests')('the console page in Chromium', () => {
  let acme: string;
  let acmeToken: string;

  beforeAll(async () => {
    mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
    const consoleSite = await sharedConsoleBuild();
    api = await startLocalApi({
      port: 0,
      dynamodbPort: 0,
      // Keys are looked up afresh on every call: a revoked key is refused at once.
      apiKeyCacheSeconds: 0,
      consoleSite,
      customDomains: {},
    });
    origin = `http://localhost:${api.port}`;
    connection = await connectLocal(api.dynamodbEndpoint);
    acme = `acme-${process.pid}`;
    acmeToken = await createProject('pro', acme);
    browser = await launchChromium({ viewport: DESKTOP });
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await browser.context.newPage();
    steps = consolePage(page, origin);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    connection?.close();
    await api?.close();
  });

  it('signs in with the console token and shows the plan; the CSRF token is in no web storage and no URL', async () => {
    await page.goto(`${origin}${CONSOLE_PAGE_PATH}`);
    await heading('Sign in to the console').waitFor();
    await check('sign-in');

    await page.getByLabel('Console token').fill('pct_wrong_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('The console token is not valid.');
    // The field the reason describes has the focus again, to be corrected.
    expect(await inPage('document.activeElement.id')).toBe('console-token');

    await page.getByLabel('Console token').fill(acmeToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview').waitFor();
    expect(await page.locator('#plan').textContent()).toBe('Pro');
    expect(await page.locator('#signed-in-project').textContent()).toBe(acme);
    const perMinute = PLANS.pro.limits.perMinute.toLocaleString('en');
    expect(await page.locator('#usage-minute').textContent()).toMatch(
      new RegExp(`^This minute: 0 of ${perMinute} calls`),
    );
    expect(
      await inPage('({ local: localStorage.length, session: sessionStorage.length, url: location.href })'),
    ).toEqual({ local: 0, session: 0, url: `${origin}${CONSOLE_PAGE_PATH}` });
    const [cookie] = await browser.context.cookies(origin);
    expect(cookie).toMatchObject({ name: SESSION_COOKIE, httpOnly: true, secure: true, sameSite: 'Strict' });
    await check('overview');

    // A reload asks GET /session again: still signed in, without the token.
    await page.reload();
    await heading('Overview').waitFor();
  }, 60_000);

  it('creates a key shown once, which works with curl, then revokes it in the page: curl is refused', async () => {
    await navigate('API keys');
    await page.getByLabel('Name').fill('ci');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByLabel('API key', { exact: true });
    await secret.waitFor();
    const apiKey = await secret.inputValue();
    expect(apiKey).toMatch(/^ask_/);
    expect(await page.getByText('This is the only time the key is shown.').count()).toBe(1);
    await page.getByRole('button', { name: 'Copy the API key' }).click();
    await page.getByRole('button', { name: 'Copied the API key' }).waitFor();
    expect(await inPage<string>('navigator.clipboard.readText()')).toBe(apiKey);
    await check('keys-new-secret');

    expect(await curlPets(api.port, acme, apiKey)).toBe(200);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: 'Revoke key ci' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke key ci?' });
    await dialog.waitFor();
    await check('keys-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page
      .locator('li', { hasText: 'ci' })
      .getByText(/^Revoked /)
      .waitFor();
    await check('keys');

    expect(await curlPets(api.port, acme, apiKey)).toBe(401);
  }, 60_000);

  it('adds a domain, shows its record, verifies it once the record exists, and shows the certificate issued', async () => {
    await navigate('Domains');
    await page.getByLabel('Domain or subdomain').fill('Shop.ACME-pets.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const shop = card(SHOP);
    await shop.waitFor();
    expect(await shop.getByText('DNS changes may take up to 48 hours to propagate.').count()).toBe(1);

    // Verify before the record exists: the verdict and its fix, in the live region.
    await shop.getByRole('button', { name: 'Verify' }).click();
    const verdict = shop.locator('.verdict[aria-live="polite"]');
    await verdict.getByText(/^Not verified/).waitFor();
    expect(await verdict.locator('p').count()).toBe(2);
    await check('domains-pending');

    // The record, as the page shows it.
    const record = {
      name: await shop.locator('.record-name').textContent(),
      type: await shop.locator('.record-type').textContent(),
      value: await shop.locator('.record-value').textContent(),
      ttl: await shop.locator('.record-ttl').textContent(),
    };
    expect(record).toEqual({
      name: 'shop',
      type: 'CNAME',
      value: projectTarget(targetIds.get(acme) ?? '', api.domains?.target ?? ''),
      ttl: '3600',
    });
    await sandboxRecord(acmeToken, `${record.name}.acme-pets.test`, record.type ?? '', record.value ?? '');

    await shop.getByRole('button', { name: 'Re-verify' }).click();
    await verdict.getByText(`Verified: ${SHOP} is a CNAME of ${record.value}.`).waitFor();
    // The page asks for the list again, which moves the certificate on: the local CA has issued it.
    await shop.locator('.domain-state[data-state="active"]').waitFor();
    expect(await shop.locator('.domain-certificate').textContent()).toBe('Issued');
    await check('domains-active');
  }, 60_000);

  it('makes another domain a redirect through its menu', async () => {
    await page.getByLabel('Domain or subdomain').fill(WWW);
    await page.getByRole('button', { name: 'Add domain' }).click();
    const www = card(WWW);
    await www.waitFor();
    const toggle = www.getByRole('button', { name: `Actions for ${WWW}` });
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await check('domains-menu');
    await www.getByRole('button', { name: 'Make it a redirect' }).click();
    await www.locator('.badge.role-redirect').waitFor();
    expect(await www.locator('.badge').textContent()).toBe('Redirect');
  }, 60_000);

  it('removes a domain that serves traffic through the dialog, which warns and offers a redirect first', async () => {
    await page.getByLabel('Domain or subdomain').fill(API_DOMAIN);
    await page.getByRole('button', { name: 'Add domain' }).click();
    const domain = card(API_DOMAIN);
    await domain.waitFor();
    await sandboxRecord(
      acmeToken,
      API_DOMAIN,
      'CNAME',
      projectTarget(targetIds.get(acme) ?? '', api.domains?.target ?? ''),
    );
    await domain.getByRole('button', { name: 'Verify' }).click();
    await domain.locator('.domain-state[data-state="active"]').waitFor();

    await domain.getByRole('button', { name: `Actions for ${API_DOMAIN}` }).click();
    await domain.getByRole('button', { name: 'Remove…' }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${API_DOMAIN}?` });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(`Traffic to ${API_DOMAIN} stops immediately`);
    expect(await dialog.getByRole('button', { name: 'Make it a redirect first' }).count()).toBe(1);
    // The safe choice has the focus.
    expect(await page.locator(':focus').textContent()).toBe('Cancel');
    await check('domains-remove-dialog');

    await dialog.getByRole('button', { name: 'Remove domain' }).click();
    await domain.waitFor({ state: 'detached' });
    const left = await page.locator('li[data-domain]').all();
    expect(await Promise.all(left.map((item) => item.getAttribute('data-domain')))).toEqual([SHOP, WWW]);
  }, 60_000);

  it('signs out: the page is back at sign-in and the old session is refused', async () => {
    const [cookie] = await browser.context.cookies(origin);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the console').waitFor();
    expect(await browser.context.cookies(origin)).toEqual([]);

    const replayed = await fetch(`${origin}/console/api/usage`, {
      headers: { Cookie: `${SESSION_COOKIE}=${cookie?.value}` },
    });
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ code: 'session_ended', status: 401 });
  }, 60_000);

  it('shows a Free project the paid-plan note, and no Add domain form', async () => {
    const hobby = `hobby-${process.pid}`;
    await signIn(await createProject('free', hobby));
    expect(await page.locator('#plan').textContent()).toBe('Free');
    expect(await page.locator('#plan-note').textContent()).toMatch(/Pro or above/);
    await check('overview-free');

    await navigate('Domains');
    expect(await page.locator('#plan-note').textContent()).toMatch(/Pro or above/);
    expect(await page.getByLabel('Domain or subdomain').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add domain' }).count()).toBe(0);
    await check('domains-free');
  }, 60_000);

  it("shows an apex its ALIAS/ANAME to the project's target and, beside it, the TXT record that proves it is the project's", async () => {
    const apexProject = `apex-${process.pid}`;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(await createProject('pro', apexProject));
    await navigate('Domains');
    await page.getByLabel('Domain or subdomain').fill('acme-apex.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const apex = card('acme-apex.test');
    await apex.waitFor();

    const rows = await apex
      .locator('.record tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('code')].map((code) => code.textContent)),
      );
    const targetId = targetIds.get(apexProject) ?? '';
    expect(rows).toEqual([
      ['@', 'ALIAS/ANAME', projectTarget(targetId, api.domains?.target ?? ''), '3600'],
      ['_animal-store', 'TXT', ownershipToken(targetId), '3600'],
    ]);
    expect(
      await apex.getByText('the second proves the domain is this project’s', { exact: false }).count(),
    ).toBe(1);
    await check('domains-apex');
  }, 60_000);
});
