import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import document from '../../openapi.json';
import { ROUTES } from '../../lambda/api/routes';
import { REDOCLY_ENV } from './redocly-env';

/**
 * `npm run docs` renders openapi.json into docs/index.html (a build artifact, not
 * checked in); a headless Chromium must load it and list every operation. Debian's
 * chromium is used; without it the test is skipped locally but fails in CI.
 */
const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.join(__dirname, '..', '..');
const available = existsSync(CHROMIUM);
const inCi = Boolean(process.env.CI);
if (!available && !inCi) {
  console.warn(
    `Skipping the API docs page test: ${CHROMIUM} is missing (apt-get install -y chromium). CI runs it.`,
  );
}

(available || inCi ? describe : describe.skip)('npm run docs', () => {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-chromium-'));
  afterAll(() => rmSync(userDataDir, { recursive: true, force: true }));

  it('renders a page that loads in a headless browser and lists the operations', async () => {
    await promisify(execFile)('npm', ['run', '--silent', 'docs'], {
      cwd: ROOT,
      env: { ...process.env, ...REDOCLY_ENV },
    });
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
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
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(pathToFileURL(path.join(ROOT, 'docs', 'index.html')).href);
      await page
        .getByRole('heading', { name: /Animal Store Service/ })
        .first()
        .waitFor({ timeout: 20_000 });
      // The sidebar lists each tag's operations once the tag is opened.
      for (const tag of document.tags) await page.getByText(tag.name, { exact: true }).first().click();
      for (const route of ROUTES) {
        const link = page.locator(`a[href$="/${route.operationId.toLowerCase()}"]`).first();
        await link.waitFor({ state: 'attached', timeout: 10_000 });
      }
      const text = await page.locator('body').innerText();
      for (const operation of Object.values(document.paths).flatMap((item) => Object.values(item))) {
        expect(text).toContain(operation.summary);
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
