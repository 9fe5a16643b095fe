import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import openapi from '../../openapi.json';
import { ERROR_CATALOGUE } from '../../lambda/api/errors';
import { ROUTES } from '../../lambda/api/routes';
import { describeInBrowser, launchChromium, screenshotToLookAt } from '../support/chromium';
import { REDOCLY_ENV } from './redocly-env';

/**
 * `npm run docs` renders openapi.json into docs/index.html (a build artifact, not
 * checked in); a headless Chromium must load it, list every operation, and render the
 * error codes whole inside code spans with no Markdown left as literal backticks.
 * Screenshots go to test-output/screenshots/ (gitignored) for a person to look at, when the run
 * keeps them (SCREENSHOTS=1).
 * Debian's chromium is used; without it the test is skipped locally but fails in CI.
 */
const ROOT = path.join(__dirname, '..', '..');
const SCREENSHOTS = path.join(ROOT, 'test-output', 'screenshots');
const CODES = Object.keys(ERROR_CATALOGUE);
/** Every operation in the document, each with the tag the page files it under. */
const OPERATIONS = Object.values(openapi.paths).flatMap((item) =>
  Object.values(item as Record<string, { operationId: string; summary: string; tags: string[] }>),
);

/** The few DOM types the page functions below use (the project compiles without the DOM library). */
interface DomNode {
  readonly nodeType: number;
  readonly textContent: string | null;
  readonly parentElement: DomElement | null;
  readonly childNodes: ArrayLike<DomNode>;
}
interface DomElement extends DomNode {
  closest(selector: string): DomElement | null;
  getClientRects(): { readonly length: number };
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

/** Visible text that still holds a backtick: Markdown shown as plain text. */
function literalBackticks(page: Page): Promise<string[]> {
  return page.locator('body').evaluate((body: DomElement) => {
    const TEXT_NODE = 3;
    const found: string[] = [];
    const visit = (node: DomNode): void => {
      if (node.nodeType !== TEXT_NODE) {
        for (const child of Array.from(node.childNodes)) visit(child);
        return;
      }
      const parent = node.parentElement;
      const text = node.textContent ?? '';
      if (!parent || !text.includes('`') || parent.closest('script, style, noscript, template')) return;
      if (parent.getClientRects().length > 0) found.push(text.trim());
    };
    visit(body);
    return found;
  });
}

/** Each error code rendered in a code element, with how many line boxes it takes (1: not split). */
function codeElements(page: Page, codes: readonly string[]): Promise<[string, number][]> {
  return page.locator('body').evaluate(
    (body: DomElement, wanted: string[]) =>
      Array.from(body.querySelectorAll('code'))
        .filter((element) => wanted.includes(element.textContent ?? ''))
        .map((element) => [element.textContent ?? '', element.getClientRects().length] as [string, number]),
    [...codes],
  );
}

describeInBrowser('the API docs page test')('npm run docs', () => {
  it('renders a page that loads in a headless browser, lists the operations and renders codes whole', async () => {
    await promisify(execFile)('npm', ['run', '--silent', 'docs'], {
      cwd: ROOT,
      env: { ...process.env, ...REDOCLY_ENV },
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
    const { context, close } = await launchChromium({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const url = pathToFileURL(path.join(ROOT, 'docs', 'index.html')).href;
      await page.goto(url);
      await page
        .getByRole('heading', { name: /Animal Store Service/ })
        .first()
        .waitFor({ timeout: 20_000 });

      // The introduction lists every error code, each in a code element on one line.
      await page.getByRole('heading', { name: 'Error codes' }).first().scrollIntoViewIfNeeded();
      await screenshotToLookAt(page, { path: path.join(SCREENSHOTS, 'api-page-error-codes.png') });
      const introCodes = await codeElements(page, CODES);
      expect([...new Set(introCodes.map(([code]) => code))].sort()).toEqual([...CODES].sort());
      expect(introCodes.filter(([, boxes]) => boxes !== 1)).toEqual([]);
      const backticks = await literalBackticks(page);

      // Each operation, reached by its address: the page routes on the hash, so what the test
      // finds does not depend on which sidebar groups an earlier click or scroll left open. The
      // sidebar link to it, its summary, then each of its responses open: codes whole, no
      // literal backticks. Waits are for elements, never for a time; the bound is the test's own
      // (on a machine running two test files at once a panel once took more than 20 s).
      expect(OPERATIONS.map((operation) => operation.operationId)).toEqual(
        expect.arrayContaining(ROUTES.map((route) => route.operationId)),
      );
      for (const operation of OPERATIONS) {
        const id = `${operation.tags[0]}/${operation.operationId.toLowerCase()}`;
        await page.evaluate((hash) => {
          (globalThis as unknown as { location: { hash: string } }).location.hash = hash;
        }, `#/${id}`);
        const section = page.locator(`[id="${id}"]`);
        await section.getByText(operation.summary).first().waitFor({ timeout: 60_000 });
        await page.locator(`a[href="#/${id}"]`).first().waitFor({ state: 'attached', timeout: 10_000 });
        // The middle panel's statuses; the right panel follows them with its sample.
        const tabs = section.getByRole('tablist', { name: 'Response status' }).getByRole('tab');
        await tabs.first().waitFor({ timeout: 10_000 });
        for (let i = 0; i < (await tabs.count()); i++) {
          await tabs.nth(i).click();
          expect((await codeElements(page, CODES)).filter(([, boxes]) => boxes !== 1)).toEqual([]);
          backticks.push(...(await literalBackticks(page)));
        }
        if (operation.operationId === 'createPet') {
          await section.getByRole('heading', { name: 'Responses' }).first().scrollIntoViewIfNeeded();
          await screenshotToLookAt(page, { path: path.join(SCREENSHOTS, 'api-page-createPet.png') });
        }
      }
      expect([...new Set(backticks)]).toEqual([]);

      // A phone's width: the codes still fit on one line each.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(url);
      await page.getByRole('heading', { name: 'Error codes' }).first().scrollIntoViewIfNeeded();
      await screenshotToLookAt(page, { path: path.join(SCREENSHOTS, 'api-page-error-codes-narrow.png') });
      expect((await codeElements(page, CODES)).filter(([, boxes]) => boxes !== 1)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 240_000);
});
