import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { sessionCookie } from '../../lambda/api/console-cookies';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { screenshotToLookAt, seriousAxeViolations } from './chromium';

/**
 * The console page as the browser tests drive it: the steps a person takes (sign in, follow a
 * navigation link), the checks every state of the page gets (axe-core and screenshots at both
 * widths), and a real call of a project's API with a key.
 */

export const CONSOLE_SCREENSHOTS = path.resolve(__dirname, '../../test-output/console');
export const DESKTOP = { width: 1280, height: 900 };
export const NARROW = { width: 360, height: 800 };

export interface ConsolePage {
  /**
   * An expression evaluated in the page. Written as text: the project compiles without the DOM
   * library, whose names (document, navigator, …) exist only in the page.
   */
  inPage<T = unknown>(expression: string): Promise<T>;
  /** The page's heading (level 1) of that name. */
  heading(name: string): ReturnType<Page['getByRole']>;
  /** A domain's card on the Domains page. */
  card(domain: string): ReturnType<Page['locator']>;
  /** The focused element's id and text: where the focus landed. */
  focused(): Promise<{ id: string; text: string }>;
  /** axe-core on the page as it is at both widths (the narrow one must not scroll sideways), and screenshots if the run keeps them. */
  check(name: string): Promise<void>;
  signIn(token: string): Promise<void>;
  /**
   * Opens the console page holding this person's session (`people.signIn`'s cookie), as after
   * their OpenID sign-in: the cookie arrives in an answer's Set-Cookie, as the sign-in's callback
   * sends it (the browser keeps a `__Host-` cookie only so). Other cookies are cleared first.
   */
  openWithSession(secret: string): Promise<void>;
  /** `openWithSession`, then the Overview, where a member of a project lands. */
  signInAs(secret: string): Promise<void>;
  /** Goes to a page of the console by its navigation link, as a person does; its heading takes the focus. */
  navigate(label: string): Promise<void>;
}

export function consolePage(page: Page, origin: string): ConsolePage {
  const inPage = <T = unknown>(expression: string) => page.evaluate<T>(expression);
  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  const steps: ConsolePage = {
    inPage,
    heading,
    card: (domain) => page.locator(`li[data-domain="${domain}"]`),
    focused: () =>
      inPage<{ id: string; text: string }>(
        '({ id: document.activeElement.id, text: document.activeElement.textContent })',
      ),
    check: async (name) => {
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshotToLookAt(page, {
        path: path.join(CONSOLE_SCREENSHOTS, `${name}-desktop.png`),
        fullPage: true,
      });
      await page.setViewportSize(NARROW);
      try {
        expect(await inPage<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
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
    },
    signIn: async (token) => {
      await page.goto(`${origin}${CONSOLE_PAGE_PATH}`);
      await heading('Sign in to the console').waitFor();
      await page.getByLabel('Console token').fill(token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading('Overview').waitFor();
    },
    openWithSession: async (secret) => {
      await page.context().clearCookies();
      const landing = `${origin}/console/api/test-landing`;
      await page.route(landing, (route) =>
        route.fulfill({
          status: 200,
          headers: { 'Set-Cookie': sessionCookie(secret, 3600) },
          body: 'signed in',
        }),
      );
      await page.goto(landing);
      await page.unroute(landing);
      await page.goto(`${origin}${CONSOLE_PAGE_PATH}`);
    },
    signInAs: async (secret) => {
      await steps.openWithSession(secret);
      await heading('Overview').waitFor();
    },
    navigate: async (label) => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
      await heading(label).waitFor();
      // The heading of the page reached takes the focus, so that a screen reader starts there.
      expect(await page.locator(':focus').textContent()).toBe(label);
    },
  };
  return steps;
}

/** `curl` a project's own address in local mode with a key; the status code. */
export function curlPets(port: number, project: string, apiKey: string): Promise<number> {
  const host = `${project}.localhost:${port}`;
  return new Promise((resolve, reject) =>
    execFile(
      'curl',
      [
        '--silent',
        '--output',
        '/dev/null',
        '--write-out',
        '%{http_code}',
        '--resolve',
        `${host}:127.0.0.1`,
        '--header',
        `Authorization: Bearer ${apiKey}`,
        `http://${host}/v1/pets`,
      ],
      (error, stdout, stderr) =>
        error ? reject(new Error(`curl failed: ${stderr}`)) : resolve(Number(stdout)),
    ),
  );
}
