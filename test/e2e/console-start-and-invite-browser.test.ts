import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { CONSOLE_ERROR_CATALOGUE } from '../../lambda/api/console-error-catalogue';
import { INVITATION_DAY_MS, MAX_INVITATIONS_PER_DAY } from '../../lambda/core/invitation-limits';
import { INVITATION_TTL_MS } from '../../lambda/core/invitations';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { InvitationRepository } from '../../lambda/store/invitation-repository';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { DEV_COLLEAGUE, DEV_NEWCOMER, type DevPerson } from '../../local/dev-people';
import { outboxFolder } from '../../local/invitation-outbox';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import {
  describeInBrowser,
  launchChromiumForPeople,
  screenshotToLookAt,
  seriousAxeViolations,
} from '../support/chromium';
import { CONSOLE_SCREENSHOTS, curlPets, DESKTOP, NARROW } from '../support/console-page';
import { fakeClock } from '../support/fake-clock';
import { sharedConsoleBuild } from '../support/console-build';

/**
 * Issue 27's Done-when, in Chromium against local mode: a new person signs in, creates a project
 * and gets a key that answers 200; invites a colleague as developer; the colleague opens the
 * invitation from the outbox, signs in and joins; a second use of the link is refused, and so is
 * a use after expiry (the service's clock moved 7 days). The refusals of issue 27's safety review
 * are shown and focused too: the day's cap of invitations at the form, an inviter gone and a
 * person the member rules refuse at the sign-in's return. axe-core at 1280 and 360 px on the new
 * pages. One Chromium, a context per person (cookies of their own, at the console and the provider).
 */
describeInBrowser('starting alone and inviting a colleague')('start alone, invite, join', () => {
  let api: LocalApi;
  let dataDir: string;
  let origin: string;
  let clock: ReturnType<typeof fakeClock>;
  let chromium: Awaited<ReturnType<typeof launchChromiumForPeople>>;

  beforeAll(async () => {
    mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'invites-data-'));
    clock = fakeClock(Date.now());
    api = await startLocalApi({
      port: 0,
      dynamodbPort: 0,
      dataDir,
      consoleSite: await sharedConsoleBuild(),
      customDomains: {},
      openIdProviderPort: 0,
      selfService: { enabled: true, projectCap: 100 },
    });
    origin = `http://localhost:${api.port}`;
    chromium = await launchChromiumForPeople();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await api?.close();
    clock?.restore();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A browser of one person's own (its own cookies, at the console and at the provider). */
  async function newBrowser(): Promise<Page> {
    return (await chromium.newContext({ viewport: DESKTOP })).newPage();
  }

  /** The project's invitations of the last day, up to the cap, stored as sent and revoked. */
  async function sendTheDaysLast(project: string) {
    const documents = createDocumentClient(api.dynamodbEndpoint);
    try {
      const store = new InvitationRepository(documents, LOCAL_TABLE_NAMES.invitations);
      const at = new Date(Date.now()).toISOString();
      for (let made = 1; made <= MAX_INVITATIONS_PER_DAY; made += 1) {
        await store.create({
          invitationId: made.toString(16).padStart(16, '0'),
          project,
          secretHash: '0'.repeat(64),
          email: `sent-${made}@people.test`,
          role: 'viewer',
          createdAt: at,
          expiresAt: new Date(Date.now() + 7 * INVITATION_DAY_MS).toISOString(),
          state: 'revoked',
          revokedAt: at,
        });
      }
    } finally {
      documents.destroy();
    }
  }

  async function axeAtBothWidths(page: Page, name: string) {
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

  it('a newcomer starts a project, invites a colleague, who joins once and only before expiry; refusals shown and focused', async () => {
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

    // 6. The day's cap reached, the next invitation is refused at the form, which takes the focus.
    await sendTheDaysLast(project);
    await newcomer.getByLabel('Email address').fill('one-too-many@dev.animalstore.localhost');
    await newcomer.getByRole('button', { name: 'Invite' }).click();
    const capped = newcomer.locator('#invite-error');
    await capped.waitFor();
    expect(await capped.textContent()).toContain(
      `created ${MAX_INVITATIONS_PER_DAY} invitations in the last 24 hours`,
    );
    expect(await newcomer.evaluate<string | undefined>('document.activeElement?.id')).toBe('invite-email');
    expect(await newcomer.getByLabel('Email address').getAttribute('aria-describedby')).toBe('invite-error');
    await axeAtBothWidths(newcomer, 'invitations-refused');

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
    // So are an inviter who may no longer invite and a person the member rules refuse, as the
    // callback sends them back (its redirect: console-invitation-safety.test.ts), each a page of its own.
    for (const code of ['invitation_inviter_gone', 'invitation_not_accepted'] as const) {
      await late.goto('about:blank');
      await late.goto(`${origin}${CONSOLE_PAGE_PATH}#invitation-refused=${code}`);
      await late.getByRole('heading', { level: 1, name: 'This invitation cannot be used' }).waitFor();
      expect(await late.locator('#join-refusal').textContent()).toBe(
        CONSOLE_ERROR_CATALOGUE[code].description,
      );
      expect(await late.evaluate<string | undefined>('document.activeElement?.id')).toBe('join-heading');
    }
  }, 240_000);
});
