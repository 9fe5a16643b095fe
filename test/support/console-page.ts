import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { seriousAxeViolations } from './chromium';

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
  /** axe-core on the page as it is, then screenshots at both widths; the narrow one must not scroll sideways. */
  check(name: string): Promise<void>;
  signIn(token: string): Promise<void>;
  /** Goes to a page of the console by its navigation link, as a person does; its heading takes the focus. */
  navigate(label: string): Promise<void>;
}

export function consolePage(page: Page, origin: string): ConsolePage {
  const inPage = <T = unknown>(expression: string) => page.evaluate<T>(expression);
  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  return {
    inPage,
    heading,
    card: (domain) => page.locator(`li[data-domain="${domain}"]`),
    focused: () =>
      inPage<{ id: string; text: string }>(
        '({ id: document.activeElement.id, text: document.activeElement.textContent })',
      ),
    check: async (name) => {
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({ path: path.join(CONSOLE_SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
      await page.setViewportSize(NARROW);
      try {
        expect(await inPage<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
          NARROW.width,
        );
        expect(await seriousAxeViolations(page)).toEqual([]);
        await page.screenshot({ path: path.join(CONSOLE_SCREENSHOTS, `${name}-360.png`), fullPage: true });
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
    navigate: async (label) => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
      await heading(label).waitFor();
      // The heading of the page reached takes the focus, so that a screen reader starts there.
      expect(await page.locator(':focus').textContent()).toBe(label);
    },
  };
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
