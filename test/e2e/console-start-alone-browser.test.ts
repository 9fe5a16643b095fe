import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { type LocalApi, startLocalApi } from '../../local/server';
import { describeInBrowser, launchChromium } from '../support/chromium';
import { consolePeople, newPerson } from '../support/console-people';
import {
  CONSOLE_SCREENSHOTS,
  type ConsolePage,
  consolePage,
  curlPets,
  DESKTOP,
} from '../support/console-page';
import { sharedConsoleBuild } from '../support/console-build';

/**
 * The self-service start in the page (issue 27), in Chromium against local mode: a person of no
 * project sees "Create your first project", a refused name is shown under the field with the
 * focus, the project is created and its first key shown once (and answers 200 at the project's
 * address), and the person opens it. With self-service off the page says how to get a project.
 * The person's session is started as the OpenID sign-in starts it and put in the browser as its
 * cookie (the sign-in's own browser test is the OIDC branch's). axe at 1280 and 360 px.
 */

let api: LocalApi;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let steps: ConsolePage;
let origin: string;
let people: ReturnType<typeof consolePeople>;

async function start(enabled: boolean): Promise<void> {
  api = await startLocalApi({
    port: 0,
    dynamodbPort: 0,
    consoleSite: await sharedConsoleBuild(),
    customDomains: {},
    selfService: { enabled, projectCap: 100 },
  });
  origin = `http://localhost:${api.port}`;
  people = consolePeople({ api, now: Date.now });
  steps = consolePage(page, origin);
}

async function stop(): Promise<void> {
  people?.close();
  await api?.close();
}

describeInBrowser('the console start-alone browser test')('a person who starts alone, in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
    browser = await launchChromium({ viewport: DESKTOP });
    page = await browser.context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  describe('self-service on', () => {
    beforeAll(() => start(true), 60_000);
    afterAll(stop);

    it('creates a first project, shows its key once, and opens it', async () => {
      const person = newPerson('alone');
      const { cookie } = await people.signIn(person);
      await steps.openWithSession(cookie);
      await steps.heading('Create your first project').waitFor();
      expect(await page.locator(':focus').textContent()).toBe('Create your first project');
      await steps.check('start-alone');

      // A refusal is shown under the field, which takes the focus and is described by it.
      await page.getByLabel('Name').fill('console');
      await page.getByRole('button', { name: 'Create project' }).click();
      const refusal = page.locator('#project-error');
      await refusal.waitFor();
      expect(await refusal.textContent()).toContain('reserved by the platform');
      expect((await steps.focused()).id).toBe('project-name');
      expect(await page.getByLabel('Name').getAttribute('aria-describedby')).toContain('project-error');
      await steps.check('start-alone-refused');

      const name = `alone-${process.pid}`;
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Create project' }).click();
      await steps.heading(`Project ${name} is ready`).waitFor();
      const apiKey = await page.getByRole('textbox', { name: 'API key' }).inputValue();
      expect(apiKey).toMatch(/^ask_/);
      expect(await page.locator(':focus').getAttribute('aria-labelledby')).toBe('first-key-heading');
      expect(await curlPets(api.port, name, apiKey)).toBe(200);
      await steps.check('start-alone-key');

      await page.getByRole('button', { name: `I have stored it: open ${name}` }).click();
      await steps.heading('Overview').waitFor();
      expect(await page.locator('#signed-in-project').textContent()).toBe(name);
      expect((await people.store.get(name, person))?.role).toBe('owner');
      // The Free plan's note says how to ask for another plan: plan changes are the platform team's.
      await page.locator('#upgrade-note').waitFor();
      expect(await page.locator('#upgrade-note').textContent()).toContain('npm run projects -- set-plan');
      await steps.check('start-alone-opened');
    });
  });

  describe('self-service off', () => {
    beforeAll(() => start(false), 60_000);
    afterAll(stop);

    it('says how to get a project, and offers no form', async () => {
      const { cookie } = await people.signIn(newPerson('off'));
      await steps.openWithSession(cookie);
      await steps.heading('Create your first project').waitFor();
      expect(await page.locator('#self-service-off').textContent()).toContain('ask your platform team');
      expect(await page.getByRole('button', { name: 'Create project' }).count()).toBe(0);
      await steps.check('start-alone-off');
    });
  });
});
