import type { ConsoleBuild } from '../../console/build';
import { CONSOLE_SECURITY_HEADERS } from '../../console/security-headers';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { type LocalApi, startLocalApi } from '../../local/server';
import { describeInBrowser, launchChromium } from '../support/chromium';
import { sharedConsoleBuild } from '../support/console-build';

/**
 * The console page as local mode serves it: every answer carries exactly the one list of
 * security headers (CONSOLE_SECURITY_HEADERS, which the console distribution sets in AWS), with
 * its Content-Type and Cache-Control; the page has no inline script or style; and Chromium
 * enforces its policy: an inline script injected into it does not run, and it cannot be framed.
 */

let api: LocalApi;
let site: ConsoleBuild;
let origin: string;

/** The headers a server chooses (not those of the HTTP connection itself). */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

function chosenHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => !TRANSPORT.has(name)));
}

const lowerCased = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

beforeAll(async () => {
  site = await sharedConsoleBuild();
  api = await startLocalApi({ port: 0, dynamodbPort: 0, consoleSite: site, customDomains: {} });
  origin = `http://localhost:${api.port}`;
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe('the console page over HTTP', () => {
  it('serves each built file with exactly the security headers, its Content-Type and its Cache-Control', async () => {
    const paths = [CONSOLE_PAGE_PATH, ...site.files.map((file) => `${CONSOLE_PAGE_PATH}${file.path}`)];
    for (const pathname of paths) {
      const file = site.files.find((candidate) => pathname.endsWith(`/${candidate.path}`)) ?? site.files[0];
      const response = await fetch(`${origin}${pathname}`);
      expect(response.status).toBe(200);
      expect(chosenHeaders(response)).toEqual({
        ...lowerCased(CONSOLE_SECURITY_HEADERS),
        'content-type': file?.contentType,
        'cache-control': file?.cacheControl,
      });
    }
    expect(site.files.map((file) => file.cacheControl)).toEqual([
      'no-cache',
      'public, max-age=31536000, immutable',
      'public, max-age=31536000, immutable',
    ]);
  });

  it('has no inline script or style: one external script and one style sheet, both of its own origin', async () => {
    const html = await (await fetch(`${origin}${CONSOLE_PAGE_PATH}`)).text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]?.[1]).toMatch(/\bsrc="app-[A-Z0-9]+\.js"/);
    expect(scripts[0]?.[2]).toBe('');
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    expect([...html.matchAll(/<link\b[^>]*>/g)].map(([tag]) => tag)).toEqual([
      expect.stringMatching(/rel="stylesheet" href="app-[A-Z0-9]+\.css"/),
    ]);
  });

  it('redirects /console to /console/ and answers unknown files and other methods with the Error body', async () => {
    const bare = await fetch(`${origin}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe(CONSOLE_PAGE_PATH);

    const missing = await fetch(`${origin}/console/missing.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toBe(
      CONSOLE_SECURITY_HEADERS['Content-Security-Policy'],
    );
    expect(await missing.json()).toMatchObject({ code: 'not_found', status: 404 });

    const posted = await fetch(`${origin}${CONSOLE_PAGE_PATH}`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    expect(await posted.json()).toMatchObject({ code: 'method_not_allowed', status: 405 });
  });
});

describeInBrowser('the console CSP browser test')('the console page in Chromium, under its policy', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('runs its own script, refuses an injected inline script and inline style, and reports the violations', async () => {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${origin}${CONSOLE_PAGE_PATH}`);
      await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
      // Written as text: the project compiles without the DOM library, whose names exist only in the page.
      const outcome = await page.evaluate(`(async () => {
        const violations = [];
        document.addEventListener('securitypolicyviolation', (event) => violations.push(event.effectiveDirective));
        const script = document.createElement('script');
        script.textContent = 'document.body.dataset.injected = "ran";';
        document.head.append(script);
        const style = document.createElement('style');
        style.textContent = 'body { display: none; }';
        document.head.append(style);
        // Violation events are dispatched as tasks of their own, in no set order with timers:
        // wait for one per blocked element (bounded, so a missing one fails the assertion below).
        const deadline = Date.now() + 10000;
        while (violations.length < 2 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return {
          ran: document.body.dataset.injected ?? null,
          display: getComputedStyle(document.body).display,
          violations: violations.sort(),
        };
      })()`);
      expect(outcome).toEqual({
        ran: null,
        display: 'block',
        violations: ['script-src-elem', 'style-src-elem'],
      });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('cannot be framed: the frame gets an error page, not the console', async () => {
    const page = await browser.context.newPage();
    try {
      const url = `${origin}${CONSOLE_PAGE_PATH}`;
      await page.setContent(`<iframe title="console" src="${url}"></iframe>`, { waitUntil: 'load' });
      const [frame] = page.frames().filter((candidate) => candidate !== page.mainFrame());
      expect(frame?.url()).not.toBe(url);
      expect(frame?.url()).toMatch(/^chrome-error:/);
    } finally {
      await page.close();
    }
  }, 60_000);
});
