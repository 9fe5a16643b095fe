import type { Page } from 'playwright-core';
import type { ToolConnection } from '../../tools/connection';
import { ProjectAdmin } from '../../tools/project-admin';
import { describeInBrowser } from '../support/chromium';
import { newPerson } from '../support/console-people';
import { type ConsoleInBrowser, openConsoleInBrowser } from '../support/console-browser';
import type { ConsolePage } from '../support/console-page';

/**
 * The Tokens view (issue 28), in Chromium against local mode: a developer makes a token (roles
 * offered up to theirs), sees its text once with a copy button, then the list with its last use;
 * a refused creation is shown with the focus on the field; revoking asks first, and the token is
 * refused from then on; an owner sees and revokes everyone's. axe-core at 1280 and 360 px.
 */

let opened: ConsoleInBrowser;
let connection: ToolConnection;
let page: Page;
let steps: ConsolePage;
let origin: string;
let people: ConsoleInBrowser['people'];

/** A tool's call with the token: its status. */
async function toolCall(token: string): Promise<{ status: number; code?: string }> {
  const response = await fetch(`${origin}/console/api/keys`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, ...(body.code ? { code: body.code } : {}) };
}

describeInBrowser('the console tokens browser test')('the Tokens view, in Chromium', () => {
  beforeAll(async () => {
    opened = await openConsoleInBrowser();
    ({ connection, page, steps, origin, people } = opened);
  }, 60_000);

  afterAll(() => opened?.close());

  it('makes a token shown once, lists its last use, revokes it after asking; the owner sees all', async () => {
    const project = `tokens-${process.pid}`;
    await new ProjectAdmin(connection).create(project, 'pro');
    const owner = newPerson('owner');
    const developer = newPerson('developer');
    await people.add(project, owner, 'owner');
    await people.add(project, developer, 'developer');

    await steps.signInAs((await people.signIn(developer, project)).cookie);
    await steps.navigate('Tokens');
    const roles = await page.getByLabel('Role').locator('option').allTextContents();
    expect(roles).toEqual(['developer', 'viewer']);
    await page.getByRole('heading', { level: 2, name: 'Your tokens' }).waitFor();
    await page.getByText('No tokens yet.').waitFor();
    await steps.check('tokens-empty');

    // Refused (no name): the reason under the field, the focus on the field it describes.
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.locator('#token-error').waitFor();
    expect((await steps.focused()).id).toBe('token-name');
    expect(await page.getByLabel('Name').getAttribute('aria-describedby')).toContain('token-error');

    await page.getByLabel('Name').fill('deploys');
    await page.getByLabel('Expires after').selectOption('90');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('heading', { level: 2, name: 'Token deploys: copy it now' });
    await shown.waitFor();
    const token = await page.getByRole('textbox', { name: 'Personal access token' }).inputValue();
    expect(token).toMatch(/^pat_[0-9a-f]{32}_/);
    expect((await steps.focused()).text).toContain('This is the only time the token is shown.');
    await page.getByRole('button', { name: 'Copy the token' }).waitFor();
    await steps.check('tokens-created');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect((await steps.focused()).text).toBe('deploys');
    expect(await page.content()).not.toContain(token);
    const card = page.locator('li[data-token-id]');
    expect(await card.locator('dd').allTextContents()).toEqual(
      expect.arrayContaining(['developer', 'Never']),
    );

    // Used by a tool: the list shows when.
    expect(await toolCall(token)).toEqual({ status: 200 });
    await steps.navigate('Overview');
    await steps.navigate('Tokens');
    await card.waitFor();
    expect(await card.locator('dd').allTextContents()).not.toContain('Never');

    // The owner sees everyone's, with whose each is, and revokes after confirming.
    await steps.signInAs((await people.signIn(owner, project)).cookie);
    await steps.navigate('Tokens');
    expect(await page.getByLabel('Role').locator('option').allTextContents()).toEqual([
      'owner',
      'admin',
      'developer',
      'viewer',
    ]);
    await page.getByRole('heading', { level: 2, name: "The project's tokens" }).waitFor();
    await card.getByText(developer.email).waitFor();
    await steps.check('tokens-owner');
    await page.getByRole('button', { name: 'Revoke token deploys' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke token deploys?' });
    await dialog.waitFor();
    expect((await steps.focused()).text).toBe('Cancel');
    await steps.check('tokens-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await page.locator('#announcer', { hasText: 'Token deploys revoked' }).waitFor();
    await card.getByText(/^Revoked /).waitFor();
    expect(await page.getByRole('button', { name: 'Revoke token deploys' }).count()).toBe(0);
    expect(await toolCall(token)).toEqual({ status: 401, code: 'personal_token_revoked' });
  }, 180_000);
});
