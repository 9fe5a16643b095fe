import type { Page } from 'playwright-core';
import { SESSION_COOKIE_NAME } from '../../lambda/api/console-cookies';
import type { ToolConnection } from '../../tools/connection';
import { ProjectAdmin } from '../../tools/project-admin';
import { describeInBrowser } from '../support/chromium';
import { newPerson } from '../support/console-people';
import { type ConsoleInBrowser, openConsoleInBrowser } from '../support/console-browser';
import type { ConsolePage } from '../support/console-page';

/**
 * Roles in the page (issue 26), in Chromium against local mode: a viewer sees usage and keys
 * but no button to create, rotate or revoke one; the owner makes the viewer a developer on the
 * Members page, and the developer may then create a key; the owner removes them, and their
 * next request is refused. The person's session is started as the OpenID sign-in starts it
 * (the sign-in's own browser test is the OIDC branch's) and put in the browser as its cookie.
 */

let opened: ConsoleInBrowser;
let connection: ToolConnection;
let page: Page;
let steps: ConsolePage;
let origin: string;
let people: ConsoleInBrowser['people'];

describeInBrowser('the console members browser test')('roles in the console page, in Chromium', () => {
  beforeAll(async () => {
    opened = await openConsoleInBrowser();
    ({ connection, page, steps, origin, people } = opened);
  }, 60_000);

  afterAll(() => opened?.close());

  it('hides what a viewer may not do; the owner changes the role in the page, then removes them', async () => {
    const project = `team-${process.pid}`;
    await new ProjectAdmin(connection).create(project, 'pro');
    const owner = newPerson('owner');
    const member = newPerson('viewer');
    await people.add(project, owner, 'owner');
    await people.add(project, member, 'viewer');
    const viewer = await people.signIn(member, project);

    await steps.signInAs(viewer.cookie);
    expect(await page.locator('#signed-in-project').textContent()).toBe(project);
    await steps.navigate('API keys');
    await page.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await page.getByLabel('Name').count()).toBe(0);
    await steps.navigate('Members');
    await page.locator(`li[data-member="${member.email}"]`).waitFor();
    expect(await page.getByRole('combobox').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    await steps.check('members-viewer');
    const refused = await fetch(`${origin}/console/api/keys`, {
      method: 'POST',
      headers: {
        Cookie: `${SESSION_COOKIE_NAME}=${viewer.cookie}`,
        Origin: origin,
        'X-CSRF-Token': viewer.csrfToken,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ name: 'ci' }),
    });
    expect(refused.status).toBe(403);

    const { cookie: ownerCookie } = await people.signIn(owner, project);
    await steps.signInAs(ownerCookie);
    await steps.navigate('Members');
    const role = page.getByLabel(`Role of ${member.email}`);
    await role.waitFor();
    await steps.check('members-owner');
    await role.selectOption('developer');
    await page.locator('#announcer', { hasText: `${member.email} is now developer.` }).waitFor();

    await steps.signInAs(viewer.cookie);
    await steps.navigate('API keys');
    await page.getByLabel('Name').fill('ci');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Key ci: copy it now', level: 2 }).waitFor();
    expect((await connection.keys.listByProject(project)).map((key) => key.name)).toContain('ci');

    await steps.signInAs(ownerCookie);
    await steps.navigate('Members');
    await page.getByRole('button', { name: `Remove ${member.email}` }).click();
    await page.locator('#announcer', { hasText: `${member.email} was removed from the project.` }).waitFor();
    const after = await fetch(`${origin}/console/api/keys`, {
      headers: { Cookie: `${SESSION_COOKIE_NAME}=${viewer.cookie}` },
    });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ code: 'membership_ended' });
  }, 120_000);
});
