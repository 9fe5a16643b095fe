import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

/**
 * Debian's Chromium headless shell (`apt-get install chromium-headless-shell`, as .ci/run does):
 * the browser of every test a person would look at. It is Chromium's own engine, build and
 * version without the desktop browser's shell, the build Playwright itself drives headless: some
 * 20% less CPU per test file than the full browser (doc/testing.md).
 */
export const CHROMIUM = '/usr/bin/chromium-headless-shell';

/**
 * `describe` for browser tests: skipped (with a warning naming the fix) where Chromium is
 * missing locally, never in CI, where a missing browser must fail the run.
 */
export function describeInBrowser(what: string): jest.Describe {
  const available = existsSync(CHROMIUM);
  if (available || process.env.CI) return describe;
  console.warn(
    `Skipping ${what}: ${CHROMIUM} is missing (apt-get install -y chromium-headless-shell). CI runs it.`,
  );
  return describe.skip;
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * One headless Chromium for several people at once: each `newContext` is a browser of its own
 * (its cookies, its storage), as two people on two machines, at the cost of one process.
 */
export async function launchChromiumForPeople(): Promise<{
  newContext: (options?: BrowserContextOptions) => Promise<BrowserContext>;
  close: () => Promise<void>;
}> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return { newContext: (options) => browser.newContext(options), close: () => browser.close() };
}

/** A headless Chromium with a profile of its own; `close` ends it and deletes the profile. */
export async function launchChromium(
  options: {
    viewport?: { width: number; height: number };
    /** The page's time zone (an IANA name) and language, as a viewer's browser has them. @default the machine's */
    timezoneId?: string;
    locale?: string;
  } = {},
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    ...(options.viewport ? { viewport: options.viewport } : {}),
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Screenshots are for a person to look at, and nothing in a run reads them: taken only when the
 * run is asked for them (`SCREENSHOTS=1 npx jest …`), into the gitignored test-output/. Each
 * full-page picture costs Chromium some 0.1 s of CPU, some 70 of them a run.
 */
export const SCREENSHOTS_WANTED = process.env.SCREENSHOTS === '1';

/** `page.screenshot` when the run keeps screenshots (SCREENSHOTS_WANTED); otherwise nothing. */
export async function screenshotToLookAt(
  page: Page,
  options: Parameters<Page['screenshot']>[0],
): Promise<void> {
  if (SCREENSHOTS_WANTED) await page.screenshot(options);
}

/** An axe-core finding, as plain data. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  /** CSS selectors of the offending elements. */
  readonly targets: readonly string[];
}

/**
 * Runs axe-core on the page as it is now and returns its serious and critical violations.
 * The engine goes in through page.evaluate (the DevTools protocol), not a `<script>`: a
 * page with a strict CSP refuses inline script, and relaxing its CSP (bypassCSP) would test
 * another page than the one people get.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => 'axe' in globalThis);
  if (!loaded) await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async () => {
    interface AxeResult {
      violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
    }
    const { axe } = globalThis as unknown as { axe: { run(): Promise<AxeResult> } };
    const result = await axe.run();
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.map(String).join(' ')),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
