import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { Members } from '../../lambda/core/members';
import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { MemberRepository } from '../../lambda/store/member-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { DEV_OWNER } from '../../local/dev-people';
import { DEV_PROJECT } from '../../local/dev-project';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import {
  describeInBrowser,
  launchChromium,
  screenshotToLookAt,
  seriousAxeViolations,
} from '../support/chromium';
import { CONSOLE_SCREENSHOTS, DESKTOP, NARROW } from '../support/console-page';
import { sharedConsoleBuild } from '../support/console-build';

/**
 * The development owner signs in through the local OpenID provider in Chromium, with no human
 * step: the console's button, the provider's own page (axe-core at both widths, a wrong
 * password refused there), and back in the `dev` project's console.
 */
describeInBrowser('the console sign-in through the local OpenID provider')('sign-in in Chromium', () => {
  let api: LocalApi;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  const documents: { destroy(): void }[] = [];

  beforeAll(async () => {
    mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
    api = await startLocalApi({
      port: 0,
      dynamodbPort: 0,
      consoleSite: await sharedConsoleBuild(),
      customDomains: {},
      openIdProviderPort: 0,
    });
    origin = `http://localhost:${api.port}`;
    // Project dev with the development owner as its owner, as `npm start` prepares it.
    const client = createDocumentClient(api.dynamodbEndpoint);
    documents.push(client);
    const projects = new ProjectRepository(client, LOCAL_TABLE_NAMES.projects);
    const at = new Date().toISOString();
    await projects.create({
      name: DEV_PROJECT,
      plan: 'pro',
      createdAt: at,
      consoleTokenHash: issueConsoleToken(DEV_PROJECT).hash,
      consoleTokenIssuedAt: at,
      usageId: newUsageId(),
    });
    const store = new MemberRepository(client, LOCAL_TABLE_NAMES.projectMembers);
    const members = new Members({ store, owners: projects, projects, clock: Date.now });
    await members.add(
      DEV_PROJECT,
      {
        issuer: api.openIdProvider?.issuer ?? '',
        subject: DEV_OWNER.subject,
        email: DEV_OWNER.email,
        name: DEV_OWNER.name,
      },
      'owner',
      'platform',
    );
    browser = await launchChromium({ viewport: DESKTOP });
    page = await browser.context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const client of documents) client.destroy();
    await api?.close();
  });

  async function axeAtBothWidths(name: string) {
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshotToLookAt(page, {
      path: path.join(CONSOLE_SCREENSHOTS, `${name}-desktop.png`),
      fullPage: true,
    });
    await page.setViewportSize(NARROW);
    try {
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        NARROW.width,
      );
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshotToLookAt(page, {
        path: path.join(CONSOLE_SCREENSHOTS, `${name}-360.png`),
        fullPage: true,
      });
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  }

  it("signs the development owner in on the provider's own page and lands in the dev project's console", async () => {
    await page.goto(`${origin}${CONSOLE_PAGE_PATH}`);
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();

    const toProvider: Request[] = [];
    const recordToProvider = (request: Request) => toProvider.push(request);
    page.on('request', recordToProvider);
    const leaving = performance.now();
    await page.getByRole('link', { name: 'Sign in with the identity provider' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    const toProviderMs = performance.now() - leaving;
    page.off('request', recordToProvider);
    expect(new URL(page.url()).origin).toBe(api.openIdProvider?.issuer);
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    await axeAtBothWidths('provider-sign-in');

    await page.getByLabel('Email').fill(DEV_OWNER.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('The email or the password is not right.');
    expect(new URL(page.url()).origin).toBe(api.openIdProvider?.issuer);
    await axeAtBothWidths('provider-sign-in-refused');

    // The round trip measured: from the password's submission to the console's Overview.
    const requests: Request[] = [];
    const record = (request: Request) => requests.push(request);
    page.on('request', record);
    const started = performance.now();
    await page.getByLabel('Password').fill(DEV_OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const elapsedMs = performance.now() - started;
    page.off('request', record);
    expect(await page.locator('#signed-in-project').textContent()).toBe(DEV_PROJECT);
    expect(page.url()).toBe(`${origin}${CONSOLE_PAGE_PATH}`);
    const cookies = await browser.context.cookies(origin);
    expect(cookies.map((cookie) => cookie.name)).toContain('__Host-animal-store-session');
    expect(cookies.map((cookie) => cookie.name)).not.toContain('__Host-animal-store-sign-in');
    expect(violations).toEqual([]);
    // Measured, not asserted (wall time on a shared machine): kept beside the screenshots.
    const urls = (list: Request[]) => list.map((request) => `${request.method()} ${request.url()}`);
    writeFileSync(
      path.join(CONSOLE_SCREENSHOTS, 'sign-in-round-trip.json'),
      JSON.stringify(
        {
          toProvider: { requests: urls(toProvider), ms: Math.round(toProviderMs) },
          fromPassword: { requests: urls(requests), ms: Math.round(elapsedMs) },
        },
        null,
        2,
      ),
    );
  });
});
