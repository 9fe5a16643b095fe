import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium, which .ci/run installs: the browser of every test a person would look at. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * `describe` for browser tests: skipped (with a warning naming the fix) where Chromium is
 * missing locally, never in CI, where a missing browser must fail the run.
 */
export function describeInBrowser(what: string): jest.Describe {
  const available = existsSync(CHROMIUM);
  if (available || process.env.CI) return describe;
  console.warn(`Skipping ${what}: ${CHROMIUM} is missing (apt-get install -y chromium). CI runs it.`);
  return describe.skip;
}

/** A headless Chromium with a profile of its own; `close` ends it and deletes the profile. */
export async function launchChromium(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    ...(options.viewport ? { viewport: options.viewport } : {}),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
