import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildConsole } from '../../console/build';
import { REMOVE_CONFIRMATION } from '../../lambda/core/custom-domains/custom-domain-record';
import { MAX_ACTIVE_KEYS_PER_PROJECT } from '../../lambda/core/project-keys';
import { type LocalApi, startLocalApi } from '../../local/server';
import type { ToolConnection } from '../../tools/connection';
import { connectLocal } from '../../tools/local-store';
import { KeyAdmin } from '../../tools/key-admin';
import { ProjectAdmin } from '../../tools/project-admin';
import { describeInBrowser, launchChromium, screenshotToLookAt } from '../support/chromium';
import {
  CONSOLE_SCREENSHOTS,
  type ConsolePage,
  consolePage,
  curlPets,
  DESKTOP,
  NARROW,
} from '../support/console-page';

/**
 * What the console tells the tenant, in Chromium against local mode: every refusal of the
 * service shown where the action was, with the focus on it (and kept when the list is read
 * again); no action offered that can never apply; the Actions menu on screen at 360 px; the
 * focus put back in a sensible place after every dialog and box; usage that says when it was
 * read, is read again when the Overview is shown, and says when it cannot be read. One server
 * and one browser for all the cases, which run in order; the last one stops the server.
 */

const SHOP = 'shop.acme-pets.test';
const OLD = 'old.acme-pets.test';
const WWW = 'www.acme-pets.test';
/** A name's part of the page's ids: `shop.acme-pets.test` → `shop-acme-pets-test`. */
const idOf = (name: string) => name.replace(/[^a-z0-9-]/g, '-');

let api: LocalApi;
let apiClosed = false;
let buildDir: string;
let connection: ToolConnection;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let steps: ConsolePage;
let origin: string;
let token: string;

/**
 * The console's API as a tool calls it (bearer token), behind the page's back: it changes what
 * the page shows without the page knowing, or asks what the service answers to an action.
 */
async function tool(
  method: string,
  apiPath: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}/console/api${apiPath}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The service's refusal of an action that changes nothing when refused: its message, for the page to show. */
async function refusalOf(method: string, apiPath: string): Promise<string> {
  const answer = await tool(method, apiPath);
  expect(answer.status).toBe(409);
  return answer.body.message as string;
}

/**
 * Adds a domain in the page, creates a CNAME for it in the sandbox DNS (to `cname`, else to the
 * value the page shows) and verifies it.
 */
async function addDomain(name: string, cname?: string): Promise<void> {
  await page.getByLabel('Domain or subdomain').fill(name);
  await page.getByRole('button', { name: 'Add domain' }).click();
  const card = steps.card(name);
  await card.waitFor();
  const value = cname ?? (await card.locator('.record-value').first().textContent()) ?? '';
  api.domains?.dns.setRecord({ name, type: 'CNAME', value });
  await card.getByRole('button', { name: 'Verify' }).click();
  await card.locator('.verdict p').first().waitFor();
}

/** Waits until the page's usage reading (`#usage-read`) or its failure (`#usage-error`) is of that moment. */
async function usageTimeIs(which: 'usage-read' | 'usage-error', moment: Date): Promise<void> {
  await page.locator(`#${which} time[datetime="${moment.toISOString()}"]`).first().waitFor();
}

const menuOf = (name: string) => steps.card(name).getByRole('button', { name: `Actions for ${name}` });
const menuItems = (name: string) => steps.card(name).locator('.menu li button').allTextContents();

describeInBrowser('the console feedback browser tests')(
  'what the console tells the tenant, in Chromium',
  () => {
    beforeAll(async () => {
      mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
      buildDir = mkdtempSync(path.join(os.tmpdir(), 'console-build-'));
      api = await startLocalApi({
        port: 0,
        dynamodbPort: 0,
        apiKeyCacheSeconds: 0,
        consoleSite: await buildConsole(buildDir),
        customDomains: {},
      });
      origin = `http://localhost:${api.port}`;
      connection = await connectLocal(api.dynamodbEndpoint);
      token = (await new ProjectAdmin(connection).create(`tells-${process.pid}`, 'pro')).consoleToken;
      browser = await launchChromium({ viewport: DESKTOP });
      page = await browser.context.newPage();
      steps = consolePage(page, origin);
      await steps.signIn(token);
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      connection?.close();
      if (!apiClosed) await api?.close();
      rmSync(buildDir, { recursive: true, force: true });
    });

    it('offers the primary no redirect, and a failed or additional domain every action that can apply', async () => {
      await steps.navigate('Domains');
      await addDomain(SHOP);
      await steps.card(SHOP).locator('.domain-state[data-state="active"]').waitFor();
      await addDomain(OLD, 'old-host.example.net');
      await steps.card(OLD).locator('.domain-state[data-state="failed"]').waitFor();
      await addDomain(WWW);
      await steps.card(WWW).locator('.domain-state[data-state="active"]').waitFor();

      expect(await steps.card(SHOP).locator('.badge').textContent()).toBe('Primary');
      expect(await menuItems(SHOP)).toEqual(['Remove…']);
      expect(await menuItems(OLD)).toEqual(['Make primary', 'Make it a redirect', 'Remove…']);
      expect(await menuItems(WWW)).toEqual(['Make primary', 'Make it a redirect', 'Remove…']);

      // A refused Add: the reason under the field, which has the focus again and is described by it.
      const taken = await tool('POST', '/domains', { name: SHOP });
      expect(taken.status).toBeGreaterThanOrEqual(400);
      await page.getByLabel('Domain or subdomain').fill(SHOP);
      await page.getByRole('button', { name: 'Add domain' }).click();
      await page.locator('#domain-error').waitFor();
      expect(await page.locator('#domain-error').textContent()).toBe(taken.body.message);
      expect(await steps.focused()).toMatchObject({ id: 'domain-name' });
      expect(await page.locator('#domain-name').getAttribute('aria-describedby')).toContain('domain-error');
    }, 60_000);

    it('shows why a failed domain cannot become the primary at that domain, with the focus, and keeps it when the list is read again', async () => {
      const expected = await refusalOf('POST', `/domains/${OLD}/primary`);
      expect(expected).toMatch(/does not serve yet \(failed\)/);

      await menuOf(OLD).click();
      await steps.card(OLD).getByRole('button', { name: 'Make primary' }).click();
      const refusal = steps.card(OLD).locator(`#refusal-${idOf(OLD)}`);
      await refusal.waitFor();
      expect(await steps.focused()).toEqual({ id: `refusal-${idOf(OLD)}`, text: expected });

      // The periodic and the asked-for readings of the list keep it.
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      expect(await refusal.textContent()).toBe(expected);
      expect(await steps.card(OLD).locator('.badge').textContent()).toBe('Additional');
      await steps.check('domains-refused');
    }, 60_000);

    it('shows in the Remove dialog why the primary cannot go while others remain, with the focus; Cancel goes back to its menu', async () => {
      const expected = await refusalOf('DELETE', `/domains/${SHOP}?confirm=${REMOVE_CONFIRMATION}`);

      await menuOf(SHOP).click();
      await steps.card(SHOP).getByRole('button', { name: 'Remove…' }).click();
      const dialog = page.getByRole('dialog', { name: `Remove ${SHOP}?` });
      await dialog.waitFor();
      // The primary is never a redirect: the dialog does not offer it.
      expect(await dialog.getByRole('button').allTextContents()).toEqual(['Cancel', 'Remove domain']);

      await dialog.getByRole('button', { name: 'Remove domain' }).click();
      await dialog.locator('#dialog-refusal').waitFor();
      expect(await steps.focused()).toEqual({ id: 'dialog-refusal', text: expected });
      await steps.check('domains-remove-refused');

      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      // The page gives the focus back after the dialog has gone: wait for that event, then read it.
      await page.locator(`#menu-toggle-${idOf(SHOP)}:focus`).waitFor();
      expect(await steps.focused()).toMatchObject({ id: `menu-toggle-${idOf(SHOP)}` });
      expect(await page.locator(`li[data-domain]`).count()).toBe(3);
    }, 60_000);

    it("shows why a domain made the primary behind the page's back cannot become a redirect, then stops offering it", async () => {
      expect((await tool('POST', `/domains/${WWW}/primary`)).status).toBe(200);
      const expected = await refusalOf('POST', `/domains/${WWW}/redirect`);

      // The page still shows www as it was, and offers the redirect.
      await menuOf(WWW).click();
      await steps.card(WWW).getByRole('button', { name: 'Make it a redirect' }).click();
      const refusal = steps.card(WWW).locator(`#refusal-${idOf(WWW)}`);
      await refusal.waitFor();
      expect(await steps.focused()).toEqual({ id: `refusal-${idOf(WWW)}`, text: expected });
      expect(await steps.card(WWW).locator('.badge').textContent()).toBe('Primary');
      expect(await menuItems(WWW)).toEqual(['Remove…']);
    }, 60_000);

    it('keeps the Actions menu on screen at 360 px', async () => {
      await page.setViewportSize(NARROW);
      try {
        for (const name of [WWW, SHOP, OLD]) {
          await menuOf(name).click();
          const remove = steps.card(name).getByRole('button', { name: 'Remove…' });
          await remove.waitFor();
          for (const item of await steps.card(name).locator('.menu li button').all()) {
            const box = await item.boundingBox();
            expect(box?.x).toBeGreaterThanOrEqual(0);
            expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(NARROW.width);
          }
          expect(await steps.inPage<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
            NARROW.width,
          );
          await screenshotToLookAt(page, {
            path: path.join(CONSOLE_SCREENSHOTS, `domains-menu-${idOf(name)}-360.png`),
          });
          await page.keyboard.press('Escape');
          expect(await steps.focused()).toMatchObject({ id: `menu-toggle-${idOf(name)}` });
        }
      } finally {
        await page.setViewportSize(DESKTOP);
      }
    }, 60_000);

    it("puts the focus back where the person was after a dialog's or a menu's action succeeds", async () => {
      // shop is now an additional domain: it may become a redirect first.
      await menuOf(SHOP).click();
      await steps.card(SHOP).getByRole('button', { name: 'Remove…' }).click();
      const dialog = page.getByRole('dialog', { name: `Remove ${SHOP}?` });
      await dialog.getByRole('button', { name: 'Make it a redirect first' }).click();
      await dialog.waitFor({ state: 'detached' });
      await steps.card(SHOP).locator('.badge.role-redirect').waitFor();
      expect(await steps.focused()).toMatchObject({ id: `menu-toggle-${idOf(SHOP)}` });

      // Made the primary from its menu, it moves to the top of the list; the focus goes with it.
      await menuOf(SHOP).click();
      await steps.card(SHOP).getByRole('button', { name: 'Make primary' }).click();
      await steps.card(SHOP).locator('.badge.role-primary').waitFor();
      expect(await page.locator('li[data-domain]').first().getAttribute('data-domain')).toBe(SHOP);
      expect(await steps.focused()).toMatchObject({ id: `menu-toggle-${idOf(SHOP)}` });

      await menuOf(OLD).click();
      await steps.card(OLD).getByRole('button', { name: 'Remove…' }).click();
      await page
        .getByRole('dialog', { name: `Remove ${OLD}?` })
        .getByRole('button', { name: 'Remove domain' })
        .click();
      await steps.card(OLD).waitFor({ state: 'detached' });
      expect(await steps.focused()).toEqual({ id: 'domains-heading', text: 'Your domains' });
    }, 60_000);

    it("puts the focus on the key after its shown-once box, back on Revoke after Cancel, and on a refused rotation's reason", async () => {
      await steps.navigate('API keys');
      const unnamed = await tool('POST', '/keys', { name: '' });
      expect(unnamed.status).toBe(400);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.locator('#key-error').waitFor();
      expect(await page.locator('#key-error').textContent()).toBe(unnamed.body.message);
      expect(await steps.focused()).toMatchObject({ id: 'key-name' });

      await page.getByLabel('Name').fill('ci');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('button', { name: 'I have stored it' }).click();
      const created = await page.locator('li[data-key-id]').getAttribute('data-key-id');
      expect(await steps.focused()).toEqual({ id: `key-title-${created}`, text: 'ci' });

      await page.getByRole('button', { name: 'Rotate key ci' }).click();
      await page.getByRole('button', { name: 'I have stored it' }).click();
      const rotated = await page.locator('li[data-key-id]:not(.revoked)').getAttribute('data-key-id');
      expect(rotated).not.toBe(created);
      expect(await steps.focused()).toEqual({ id: `key-title-${rotated}`, text: 'ci' });

      await page.getByRole('button', { name: 'Revoke key ci' }).click();
      await page
        .getByRole('dialog', { name: 'Revoke key ci?' })
        .getByRole('button', { name: 'Cancel' })
        .click();
      expect(await page.locator(':focus').getAttribute('aria-label')).toBe('Revoke key ci');

      // Revoked by a tool: the page still offers Rotate, and shows the service's reason there.
      expect((await tool('DELETE', `/keys/${rotated}`)).status).toBe(200);
      const expected = await refusalOf('POST', `/keys/${rotated}/rotate`);
      await page.getByRole('button', { name: 'Rotate key ci' }).click();
      const refusal = page.locator(`#refusal-key-${rotated}`);
      await refusal.waitFor();
      expect(await steps.focused()).toEqual({ id: `refusal-key-${rotated}`, text: expected });
      await steps.check('keys-refused');
    }, 60_000);

    it("shows the key cap's refusal under the name field, with the focus, and creates nothing", async () => {
      await steps.navigate('API keys');
      const listed = await tool('GET', '/keys');
      const active = (listed.body.keys as { revokedAt?: string }[]).filter((key) => !key.revokedAt).length;
      // Filled by the keys tool's code, straight in the store: the console's own calls are counted.
      const admin = new KeyAdmin(connection);
      const fillers: string[] = [];
      for (let index = active; index < MAX_ACTIVE_KEYS_PER_PROJECT; index++)
        fillers.push((await admin.create(`tells-${process.pid}`, `filler-${index}`)).record.keyId);
      const refused = await tool('POST', '/keys', { name: 'one too many' });
      expect(refused).toMatchObject({ status: 409, body: { code: 'too_many_keys' } });

      await page.getByLabel('Name').fill('one too many');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.locator('#key-error').waitFor();
      expect(await page.locator('#key-error').textContent()).toBe(refused.body.message);
      expect(await steps.focused()).toMatchObject({ id: 'key-name' });
      const after = (await tool('GET', '/keys')).body.keys as { name: string; revokedAt?: string }[];
      expect(after.filter((key) => !key.revokedAt)).toHaveLength(MAX_ACTIVE_KEYS_PER_PROJECT);
      expect(after.map((key) => key.name)).not.toContain('one too many');
      // A revocation frees a place (the next test creates a key).
      expect((await tool('DELETE', `/keys/${fillers[0]}`)).status).toBe(200);
    }, 60_000);

    it('says when usage was read, and reads it again each time the Overview is shown', async () => {
      const first = new Date('2031-03-04T05:06:07.000Z');
      await page.clock.setFixedTime(first);
      await steps.navigate('Overview');
      const readAt = page.locator('#usage-read time');
      await usageTimeIs('usage-read', first);
      const today = async () =>
        Number((await page.locator('#usage-day').textContent())?.match(/^Today: ([\d,]+) of/)?.[1]);
      const before = await today();

      const issued = await tool('POST', '/keys', { name: 'usage' });
      const apiKey = issued.body.apiKey as string;
      for (let call = 0; call < 3; call += 1)
        expect(await curlPets(api.port, `tells-${process.pid}`, apiKey)).toBe(200);

      const second = new Date('2031-03-04T05:09:10.000Z');
      await page.clock.setFixedTime(second);
      await steps.navigate('API keys');
      await steps.navigate('Overview');
      await usageTimeIs('usage-read', second);
      expect(await today()).toBe(before + 3);
      expect(await readAt.textContent()).not.toBe('');
      await steps.check('overview-read-at');
    }, 60_000);

    it('says so when usage cannot be read, with the focus, and keeps saying when the figures shown were read', async () => {
      const shown = await page.locator('#usage-read time').getAttribute('datetime');
      await api.close();
      apiClosed = true;
      const failedAt = new Date('2031-03-04T05:10:00.000Z');
      await page.clock.setFixedTime(failedAt);

      await page.getByRole('button', { name: 'Refresh usage' }).click();
      const failure = page.locator('#usage-error');
      await failure.waitFor();
      const focused = await steps.focused();
      expect(focused.id).toBe('usage-error');
      expect(focused.text).toMatch(
        /^Usage could not be read at .+: The console could not reach the service\./,
      );
      expect(await failure.locator('time').first().getAttribute('datetime')).toBe(failedAt.toISOString());
      expect(await page.locator('#usage-read time').getAttribute('datetime')).toBe(shown);
      await steps.check('overview-usage-unreadable');

      // Shown again, the Overview tries again and says so, without taking the focus from its heading.
      const later = new Date('2031-03-04T05:11:00.000Z');
      await page.clock.setFixedTime(later);
      await steps.navigate('API keys');
      await steps.navigate('Overview');
      await usageTimeIs('usage-error', later);
    }, 60_000);
  },
);
