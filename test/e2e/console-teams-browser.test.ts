import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { type ConsoleBuild } from '../../console/build';
import { SESSION_COOKIE_NAME } from '../../lambda/api/console-cookies';
import { SIGN_IN_PROVIDER_PATH, SIGN_OUT_PATH } from '../../lambda/api/console-navigation';
import { ROLE_CACHE_MS } from '../../lambda/core/members';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { DEV_OWNER, DEV_VIEWER, type DevPerson } from '../../local/dev-people';
import { DEV_PROJECT } from '../../local/dev-project';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { describeInBrowser, launchChromiumForPeople } from '../support/chromium';
import { CONSOLE_SCREENSHOTS, type ConsolePage, consolePage, DESKTOP } from '../support/console-page';
import { fakeClock } from '../support/fake-clock';
import { runToolInProcess } from '../support/tools-in-process';
import { sharedConsoleBuild } from '../support/console-build';

/**
 * Issue 26's Done-when, in Chromium against local mode, with no human step: the development
 * owner signs in on the local provider's own page and adds a viewer with the members tool; the
 * viewer sees usage and keys but no create button, and the API refuses their create (403); the
 * owner makes them a developer in the page, and they create a key; the owner removes them, and
 * their next request is refused. Two browser contexts, one per person. Then the flow's loose
 * ends: a person of two projects switches between them, a refused return from the provider
 * lands on the page, sign-out goes through the provider, and without a provider the page
 * offers the console token alone. axe-core and screenshots at 1280 and 360 px on each state.
 */

interface Person {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly steps: ConsolePage;
}

const OTHER_PROJECT = 'dev-second';
/** The anonymous allowance is per client address and minute: each part starts in a minute of its own. */
const MINUTE = 61_000;

describeInBrowser('the teams browser test')('issue 26 in Chromium, in local mode', () => {
  let build: ConsoleBuild;
  let api: LocalApi;
  let origin: string;
  let issuer: string;
  let chromium: Awaited<ReturnType<typeof launchChromiumForPeople>>;
  let clock: ReturnType<typeof fakeClock>;
  let documents: ReturnType<typeof createDocumentClient>;
  let keys: ApiKeyRepository;
  let owner: Person;
  let viewer: Person;

  const tool = async (name: 'members' | 'projects' | 'keys', ...argv: string[]) => {
    const run = await runToolInProcess(name, argv, {
      endpoint: api.dynamodbEndpoint,
      env: { ...process.env, PORT: String(api.port) },
    });
    if (run.code !== 0) throw new Error(`npm run ${name} -- ${argv.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };
  const asMember = (person: DevPerson) => [
    '--issuer',
    issuer,
    '--subject',
    person.subject,
    '--email',
    person.email,
    '--name',
    person.name,
  ];

  async function personIn(): Promise<Person> {
    const context = await chromium.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    return { context, page, steps: consolePage(page, origin) };
  }

  /** The console's sign-in through the provider, as the person does it: the requests the browser made, and the time. */
  async function signIn({ page }: Person, person: DevPerson) {
    await page.goto(`${origin}${CONSOLE_PAGE_PATH}`);
    const button = page.getByRole('link', { name: 'Sign in with the identity provider' });
    await button.waitFor();
    const requests: Request[] = [];
    const record = (request: Request) => requests.push(request);
    page.on('request', record);
    const started = performance.now();
    await button.click();
    await page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).waitFor();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.locator('#usage-minute').waitFor();
    const ms = performance.now() - started;
    page.off('request', record);
    return {
      requests: requests.map((request) => `${request.method()} ${request.url()}`),
      ms: Math.round(ms),
    };
  }

  const keyNames = async (project: string) =>
    (await keys.listByProject(project)).map((key) => key.name).sort();

  beforeAll(async () => {
    mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
    build = await sharedConsoleBuild();
    // The service's clock (the limiter, the sessions, the role cache): moved by the test, never waited for.
    clock = fakeClock(Date.now());
    api = await startLocalApi({
      port: 0,
      dynamodbPort: 0,
      consoleSite: build,
      customDomains: {},
      openIdProviderPort: 0,
    });
    origin = `http://localhost:${api.port}`;
    issuer = api.openIdProvider?.issuer ?? '';
    documents = createDocumentClient(api.dynamodbEndpoint);
    keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
    chromium = await launchChromiumForPeople();
    owner = await personIn();
    viewer = await personIn();
  }, 90_000);

  afterAll(async () => {
    await chromium?.close();
    documents?.destroy();
    await api?.close();
    clock?.restore();
  });

  it('Done when: owner adds a viewer with the tool; viewer refused a key; made developer in the page, creates one; removed, refused', async () => {
    // What npm start prepares, and the members command it prints for the development owner.
    await tool('projects', 'create', DEV_PROJECT, '--plan', 'pro');
    await tool('keys', 'create', '--project', DEV_PROJECT, '--name', 'shop');
    await tool('members', 'add', '--project', DEV_PROJECT, '--role', 'owner', ...asMember(DEV_OWNER));

    // 1. The owner signs in on the provider's page (the round trip measured), and adds the viewer with the tool.
    const roundTrip = await signIn(owner, DEV_OWNER);
    expect(await owner.page.locator('#signed-in-project').textContent()).toBe(DEV_PROJECT);
    expect(await owner.page.locator('.who').textContent()).toContain('(owner)');
    await tool('members', 'add', '--project', DEV_PROJECT, '--role', 'viewer', ...asMember(DEV_VIEWER));
    expect(await tool('members', 'list', '--project', DEV_PROJECT)).toContain(
      `viewer     Dev Viewer <${DEV_VIEWER.email}>`,
    );

    // 2. The viewer sees usage and keys, but no way to create one; the API refuses their create.
    clock.advance(MINUTE);
    await signIn(viewer, DEV_VIEWER);
    expect(await viewer.page.locator('.who').textContent()).toContain('(viewer)');
    await viewer.steps.check('teams-viewer-overview');
    await viewer.steps.navigate('API keys');
    await viewer.page.locator('li[data-key-id] h3', { hasText: 'shop' }).waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await viewer.page.getByLabel('Name').count()).toBe(0);
    await viewer.steps.check('teams-viewer-keys');
    // A real POST from the viewer's browser, with their session's cookie and its CSRF token.
    const created = await viewer.steps.inPage<{ status: number; code: string }>(`(async () => {
      const session = await (await fetch('/console/api/session', { cache: 'no-store' })).json();
      const answer = await fetch('/console/api/keys', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': session.csrfToken },
        body: JSON.stringify({ name: 'not-allowed' }),
      });
      return { status: answer.status, code: (await answer.json()).code };
    })()`);
    expect(created).toEqual({ status: 403, code: 'action_not_permitted' });
    expect(await keyNames(DEV_PROJECT)).toEqual(['shop']);

    // 3. The owner makes the viewer a developer in the page; the developer creates a key.
    await owner.steps.navigate('Members');
    const role = owner.page.getByLabel(`Role of ${DEV_VIEWER.email}`);
    await role.waitFor();
    await owner.steps.check('teams-owner-members');
    await role.selectOption('developer');
    await owner.page.locator('#announcer', { hasText: `${DEV_VIEWER.email} is now developer.` }).waitFor();
    await viewer.page.reload();
    await viewer.steps.heading('API keys').waitFor();
    expect(await viewer.page.locator('.who').textContent()).toContain('(developer)');
    await viewer.page.getByLabel('Name').fill('ci');
    await viewer.page.getByRole('button', { name: 'Create key' }).click();
    await viewer.page.getByRole('heading', { name: 'Key ci: copy it now', level: 2 }).waitFor();
    expect(await keyNames(DEV_PROJECT)).toEqual(['ci', 'shop']);

    // 4. The owner removes the developer; the developer's next request is refused. The removal
    // went through the console function that serves them, whose role cache forgets them at once
    // (elsewhere within its 30 s), so no clock needs to move.
    await owner.page.getByRole('button', { name: `Remove ${DEV_VIEWER.email}` }).click();
    await owner.page
      .locator('#announcer', { hasText: `${DEV_VIEWER.email} was removed from the project.` })
      .waitFor();
    const [refused] = await Promise.all([
      viewer.page.waitForResponse((response) => response.url().endsWith('/console/api/usage')),
      viewer.page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Overview' })
        .click(),
    ]);
    expect({ status: refused.status(), code: ((await refused.json()) as { code: string }).code }).toEqual({
      status: 401,
      code: 'membership_ended',
    });
    await viewer.steps.heading('Sign in to the console').waitFor();
    expect(await viewer.page.locator('.notice').textContent()).toContain(
      'You are no longer a member of this project',
    );
    await viewer.steps.check('teams-membership-ended');

    writeFileSync(
      path.join(CONSOLE_SCREENSHOTS, 'teams-sign-in-round-trip.json'),
      JSON.stringify(roundTrip, null, 2),
    );
  }, 180_000);

  it("a person of two projects sees both and switches; the other project's keys stay out of sight", async () => {
    clock.advance(MINUTE);
    await tool('projects', 'create', OTHER_PROJECT, '--plan', 'pro');
    await tool('keys', 'create', '--project', OTHER_PROJECT, '--name', 'second-shop');
    await tool('members', 'add', '--project', OTHER_PROJECT, '--role', 'viewer', ...asMember(DEV_OWNER));
    const { page, steps } = owner;
    await page.goto(`${origin}${CONSOLE_PAGE_PATH}#keys`);
    await page.reload();
    const projects = page.getByLabel('Your projects');
    await projects.waitFor();
    expect(await projects.locator('option').allTextContents()).toEqual([
      `${DEV_PROJECT} (owner)`,
      `${OTHER_PROJECT} (viewer)`,
    ]);
    await page.locator('li[data-key-id] h3', { hasText: 'shop' }).first().waitFor();
    await projects.selectOption(OTHER_PROJECT);
    // Choosing is not switching: the session moves with the button.
    expect(await page.locator('#signed-in-project').textContent()).toBe(DEV_PROJECT);
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await page.locator('#announcer', { hasText: `Switched to project ${OTHER_PROJECT}.` }).waitFor();
    expect(await page.locator('#signed-in-project').textContent()).toBe(OTHER_PROJECT);
    await page.locator('li[data-key-id] h3', { hasText: 'second-shop' }).waitFor();
    expect(await page.locator('li[data-key-id] h3').allTextContents()).toEqual(['second-shop']);
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await steps.check('teams-switched-project');
    await projects.selectOption(DEV_PROJECT);
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await page.locator('#announcer', { hasText: `Switched to project ${DEV_PROJECT}.` }).waitFor();
    await page.locator('li[data-key-id] h3', { hasText: 'ci' }).waitFor();
    expect((await page.locator('li[data-key-id] h3').allTextContents()).sort()).toEqual(['ci', 'shop']);
  }, 120_000);

  it('sign-out ends the session, then goes through the provider and back to the console', async () => {
    clock.advance(MINUTE);
    const { page, context, steps } = owner;
    const before = (await context.cookies(origin)).find((cookie) => cookie.name === SESSION_COOKIE_NAME);
    expect(before).toBeDefined();
    const order: string[] = [];
    const record = (request: Request) => order.push(`${request.method()} ${new URL(request.url()).pathname}`);
    page.on('request', record);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign out', exact: true }).waitFor();
    page.off('request', record);
    // The console's session ended server-side before the browser left for the provider.
    expect(order.indexOf('DELETE /console/api/session')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('DELETE /console/api/session')).toBeLessThan(order.indexOf(`GET ${SIGN_OUT_PATH}`));
    expect(new URL(page.url()).origin).toBe(issuer);
    const ended = await fetch(`${origin}/console/api/session`, {
      headers: { Cookie: `${SESSION_COOKIE_NAME}=${before?.value}` },
    });
    expect({ status: ended.status, code: ((await ended.json()) as { code: string }).code }).toEqual({
      status: 401,
      code: 'session_ended',
    });
    await steps.check('teams-provider-sign-out');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await steps.heading('Sign in to the console').waitFor();
    expect(page.url()).toBe(`${origin}${CONSOLE_PAGE_PATH}`);
    expect(await page.locator('.notice').textContent()).toBe('You have signed out.');
    expect(await page.locator(':focus').textContent()).toBe('Sign in to the console');
    // The provider's session ended too: signing in again asks for the password.
    await page.getByRole('link', { name: 'Sign in with the identity provider' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).waitFor();
    expect(new URL(page.url()).origin).toBe(issuer);
  }, 120_000);

  describe('a return from the provider that is refused lands on the page', () => {
    let person: Person;
    beforeAll(async () => {
      person = await personIn();
    });
    afterAll(async () => {
      await person?.context.close();
    });

    /** Starts a sign-in at the console's button; the provider's authorization request it led to. */
    async function startSignIn(): Promise<string> {
      const { page } = person;
      await page.goto(`${origin}${CONSOLE_PAGE_PATH}`);
      const authorizations: string[] = [];
      const record = (request: Request) => {
        if (request.url().startsWith(`${issuer}/auth`)) authorizations.push(request.url());
      };
      page.on('request', record);
      await page.getByRole('link', { name: 'Sign in with the identity provider' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).waitFor();
      page.off('request', record);
      expect(authorizations).toHaveLength(1);
      return authorizations[0] ?? '';
    }

    async function expectRefusalPage(words: string) {
      const { page } = person;
      await page.getByRole('heading', { level: 2, name: 'The sign-in did not finish' }).waitFor();
      expect(await page.locator('#sign-in-failure').textContent()).toBe(words);
      // Focused: the way to start again, described by what happened.
      expect(await page.locator(':focus').textContent()).toBe('Sign in again');
      expect(await page.locator(':focus').getAttribute('aria-describedby')).toBe('sign-in-failure');
      // The address keeps nothing of it: a reload is a plain sign-in page.
      expect(page.url()).toBe(`${origin}${CONSOLE_PAGE_PATH}`);
      const cookies = (await person.context.cookies(origin)).map((cookie) => cookie.name);
      expect(cookies).not.toContain(SESSION_COOKIE_NAME);
      expect(cookies).not.toContain('__Host-animal-store-sign-in');
    }

    it("the provider's error (no session for prompt=none) is shown as a page, with sign in again focused", async () => {
      clock.advance(MINUTE);
      const authorization = new URL(await startSignIn());
      authorization.searchParams.set('prompt', 'none');
      await person.page.goto(authorization.href);
      await expectRefusalPage('The identity provider did not sign you in: it answered with an error.');
      await person.steps.check('teams-sign-in-provider-error');
    }, 120_000);

    it('a tampered state is refused as a page, and signing in again from there works', async () => {
      clock.advance(MINUTE);
      const { page } = person;
      await tool('members', 'add', '--project', DEV_PROJECT, '--role', 'viewer', ...asMember(DEV_VIEWER));
      // The state the provider is given, and so returns, is not the one this browser's sign-in keeps.
      const authorization = new URL(await startSignIn());
      authorization.searchParams.set('state', 'tampered');
      await page.goto(authorization.href);
      await page.getByLabel('Email').fill(DEV_VIEWER.email);
      await page.getByLabel('Password').fill(DEV_VIEWER.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expectRefusalPage(
        "The identity provider's answer did not match the sign-in this browser started (its state differed), so it was not trusted.",
      );
      await person.steps.check('teams-sign-in-state-refused');
      // The provider remembers the person: signing in again needs no password this time.
      await page.keyboard.press('Enter');
      await person.steps.heading('Overview').waitFor();
      expect(await page.locator('#signed-in-project').textContent()).toBe(DEV_PROJECT);

      // Removed by the platform (the members tool, not the console function that caches the
      // role): refused once the cache's documented bound has passed on the service's clock.
      await tool('members', 'remove', '--project', DEV_PROJECT, ...asMember(DEV_VIEWER).slice(0, 4));
      clock.advance(ROLE_CACHE_MS);
      const [refused] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/console/api/usage')),
        page.getByRole('button', { name: 'Refresh usage' }).click(),
      ]);
      expect(refused.status()).toBe(401);
      await person.steps.heading('Sign in to the console').waitFor();
    }, 120_000);
  });

  it('without a provider, the page offers only the console token, which signs in', async () => {
    const bare = await startLocalApi({ port: 0, dynamodbPort: 0, consoleSite: build, customDomains: {} });
    const person = await personIn();
    try {
      const bareOrigin = `http://localhost:${bare.port}`;
      const created = await runToolInProcess('projects', ['create', 'tokens-only', '--plan', 'pro'], {
        endpoint: bare.dynamodbEndpoint,
        env: { ...process.env, PORT: String(bare.port) },
      });
      const token = /Console token \(shown once, store it now\): (\S+)/.exec(created.stdout)?.[1] ?? '';
      const { page } = person;
      const [asked] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith(SIGN_IN_PROVIDER_PATH)),
        page.goto(`${bareOrigin}${CONSOLE_PAGE_PATH}`),
      ]);
      // The path does not exist here (for a caller not signed in, the console says 401 before 404).
      expect(asked.ok()).toBe(false);
      await page.getByText("Sign in with your project's console token:").waitFor();
      expect(await page.getByRole('link', { name: /identity provider/ }).count()).toBe(0);
      const steps = consolePage(page, bareOrigin);
      await steps.check('teams-sign-in-token-only');
      await steps.signIn(token);
      expect(await page.locator('#signed-in-project').textContent()).toBe('tokens-only');
    } finally {
      await person.context.close();
      await bare.close();
    }
  }, 120_000);
});
