import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { type LocalApi, type LocalApiOptions, startLocalApi } from '../../local/server';
import type { ToolConnection } from '../../tools/connection';
import { connectLocal } from '../../tools/local-store';
import { launchChromium } from './chromium';
import { consolePeople } from './console-people';
import { CONSOLE_SCREENSHOTS, type ConsolePage, consolePage, DESKTOP } from './console-page';
import { sharedConsoleBuild } from './console-build';

/**
 * What a browser test of the console starts before its tests: local mode with the page built
 * (every listener on a free port), the tools' connection to its store, its people, and one
 * Chromium page at desktop width on it. `close` ends them all.
 */
export interface ConsoleInBrowser {
  readonly api: LocalApi;
  readonly origin: string;
  readonly connection: ToolConnection;
  readonly people: ReturnType<typeof consolePeople>;
  readonly browser: Awaited<ReturnType<typeof launchChromium>>;
  readonly page: Page;
  readonly steps: ConsolePage;
  close(): Promise<void>;
}

/** Starts local mode and Chromium; `options` add to local mode's (e.g. `apiKeyCacheSeconds: 0`). */
export async function openConsoleInBrowser(
  options: Omit<Partial<LocalApiOptions>, 'consoleSite'> = {},
): Promise<ConsoleInBrowser> {
  mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
  // What has started, last first: a set-up that fails half way ends what it started.
  const started: (() => unknown)[] = [];
  const close = async () => {
    for (const end of started.reverse().splice(0)) await end();
  };
  try {
    const api = await startLocalApi({
      port: 0,
      dynamodbPort: 0,
      customDomains: {},
      ...options,
      consoleSite: await sharedConsoleBuild(),
    });
    started.push(() => api.close());
    const origin = `http://localhost:${api.port}`;
    const connection = await connectLocal(api.dynamodbEndpoint);
    started.push(() => connection.close());
    const people = consolePeople({ api, now: Date.now });
    started.push(() => people.close());
    const browser = await launchChromium({ viewport: DESKTOP });
    started.push(() => browser.close());
    const page = await browser.context.newPage();
    return { api, origin, connection, people, browser, page, steps: consolePage(page, origin), close };
  } catch (failure) {
    await close();
    throw failure;
  }
}
