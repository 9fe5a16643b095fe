import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildConsole } from '../../console/build';
import { INVITATION_TTL_MS } from '../../lambda/core/invitations';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { DEV_COLLEAGUE, DEV_NEWCOMER, type DevPerson } from '../../local/dev-people';
import { outboxFolder } from '../../local/invitation-outbox';
import { type LocalApi, startLocalApi } from '../../local/server';
import { describeInBrowser, launchChromium, seriousAxeViolations } from '../support/chromium';
import { CONSOLE_SCREENSHOTS, curlPets, DESKTOP, NARROW } from '../support/console-page';
import { fakeClock } from '../support/fake-clock';

/**
 * Issue 27's Done-when, in Chromium against local mode: a new person signs in, creates a project
 * and gets a key that answers 200; invites a colleague as developer; the colleague opens the
 * invitation from the outbox, signs in and joins; a second use of the link is refused, and so is
 * a use after expiry (the service's clock moved 7 days). axe-core at 1280 and 360 px on the new pages.
 */
describeInBrowser('starting alone and inviting a colleague')('start alone, invite, join', () => {
  let api: LocalApi;
  let buildDir: string;
  let dataDir: string;
  let origin: string;
  let clock: ReturnType<typeof fakeClock>;
  const browsers: Awaited<ReturnType<typeof launchChromium>>[] = [];

  beforeAll(async () => {
    mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
    buildDir = mkdtempSync(path.join(os.tmpdir(), 'console-build-'));
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'invites-data-'));
    clock = fakeClock(Date.now());
    api = await startLocalApi({
      port: 0,
      dynamodbPort: 0,
      dataDir,
      consoleSite: await buildConsole(buildDir),
      customDomains: {},
      openIdProviderPort: 0,
      selfService: { enabled: true, projectCap: 100 },
    });
    origin = `http://localhost:${api.port}`;
  }, 120_000);

  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await api?.close();
    clock?.restore();
    rmSync(buildDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A browser of one person's own (its own cookies, at the console and at the provider). */
  async function newBrowser(): Promise<Page> {
    const browser = await launchChromium({ viewport: DESKTOP });
    browsers.push(browser);
    return browser.context.newPage();
  }

  async function axeAtBothWidths(page: Page, name: string) {
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(CONSOLE_SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
    await page.setViewportSize(NARROW);
    try {
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        NARROW.width,
      );
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({ path: path.join(CONSOLE_SCREENSHOTS, `${name}-360.png`), fullPage: true });
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  }

  /** The provider's own page: the person's email and password. */
  async function signInAtProvider(page: Page, person: DevPerson) {
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Step 2 on start-alone's page: a project of their own, its first key (shown once), then its console. */
  async function startAlone(page: Page): Promise<{ project: string; apiKey: string }> {
    await page.getByRole('heading', { level: 1, name: 'Create your first project' }).waitFor();
    const project = `newcomer-${process.pid}`;
    await page.getByLabel('Name').fill(project);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: `Project ${project} is ready` }).waitFor();
    const apiKey = await page.getByRole('textbox', { name: 'API key' }).inputValue();
    await page.getByRole('button', { name: `I have stored it: open ${project}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    return { project, apiKey };
  }

  /** The newest message in the outbox folder for `to`: its file. */
  function outboxMessageFor(to: string): string {
    const folder = outboxFolder(dataDir);
    const files = readdirSync(folder)
      .filter((name) => name.endsWith('.html') && name.includes(to))
      .sort();
    const newest = files.at(-1);
    if (!newest) throw new Error(`no message for ${to} in ${folder}`);
    return path.join(folder, newest);
  }

  it('a newcomer starts a project, invites a colleague, who joins once and only before expiry', async () => {
    // 1. A new person signs in.
    const newcomer = await newBrowser();
    await newcomer.goto(`${origin}${CONSOLE_PAGE_PATH}`);
    await newcomer.getByRole('link', { name: 'Sign in with the identity provider' }).click();
    await signInAtProvider(newcomer, DEV_NEWCOMER);

    // 2. They create a project and get a key, which answers 200 against the API.
    const { project, apiKey } = await startAlone(newcomer);
    expect(await curlPets(api.port, project, apiKey)).toBe(200);

    // 3. They invite a colleague as developer.
    await newcomer.goto(`${origin}${CONSOLE_PAGE_PATH}#members`);
    await newcomer.getByRole('heading', { level: 2, name: 'Invitations' }).waitFor();
    await newcomer.getByLabel('Email address').fill(DEV_COLLEAGUE.email);
    await newcomer.getByLabel('Role', { exact: true }).selectOption('developer');
    await newcomer.getByRole('button', { name: 'Invite' }).click();
    const shownLink = await newcomer.locator('#invitation-link code').textContent();
    expect(shownLink).toMatch(new RegExp(`^${origin}/console/#invitation=inv_`));
    await newcomer.locator(`[data-invitation="${DEV_COLLEAGUE.email}"]`).waitFor();
    await axeAtBothWidths(newcomer, 'invitations');

    // 4. The colleague opens the invitation from the outbox, signs in and joins.
    const message = outboxMessageFor(DEV_COLLEAGUE.email);
    expect(readFileSync(message, 'utf8')).toContain(shownLink ?? 'no link');
    const colleague = await newBrowser();
    await colleague.goto(`file://${message}`);
    await colleague.getByRole('link', { name: 'Open the invitation' }).click();
    await colleague.getByRole('heading', { level: 1, name: `Join ${project}` }).waitFor();
    // The token left the address bar once the page had it in its cookie.
    expect(colleague.url()).toBe(`${origin}${CONSOLE_PAGE_PATH}#join`);
    await axeAtBothWidths(colleague, 'join');
    await colleague.getByRole('link', { name: 'Sign in and join' }).click();
    await signInAtProvider(colleague, DEV_COLLEAGUE);
    await colleague.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await colleague.locator('#signed-in-project').textContent()).toBe(project);
    expect(await colleague.locator('header .who').textContent()).toContain('(developer)');

    // 5. A second use of the same link is refused; so is a use after expiry.
    await colleague.goto(shownLink ?? '');
    const used = colleague.getByRole('heading', { level: 1, name: 'This invitation cannot be used' });
    await used.waitFor();
    expect(await colleague.locator('#join-refusal').textContent()).toContain('used');
    expect(await colleague.evaluate<string | undefined>('document.activeElement?.id')).toBe('join-heading');
    await axeAtBothWidths(colleague, 'join-refused');

    await newcomer.goto(`${origin}${CONSOLE_PAGE_PATH}#members`);
    await newcomer.getByLabel('Email address').fill('late@dev.animalstore.localhost');
    await newcomer.getByRole('button', { name: 'Invite' }).click();
    const lateLink = (await newcomer.locator('#invitation-link code').textContent()) ?? '';
    expect(lateLink).toContain('#invitation=inv_');
    clock.advance(INVITATION_TTL_MS);
    const late = await newBrowser();
    await late.goto(lateLink);
    await late.getByRole('heading', { level: 1, name: 'This invitation cannot be used' }).waitFor();
    expect(await late.locator('#join-refusal').textContent()).toContain('expired');

    // A refusal at the sign-in's return (here: another address than the invited one) is shown and focused too.
    await late.goto(`${origin}${CONSOLE_PAGE_PATH}#invitation-refused=invitation_wrong_email`);
    await late.getByRole('heading', { level: 1, name: 'This invitation cannot be used' }).waitFor();
    expect(await late.locator('#join-refusal').textContent()).toContain('not the invited address');
    expect(await late.evaluate<string | undefined>('document.activeElement?.id')).toBe('join-heading');
  }, 240_000);
});
