import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { describeInBrowser, launchChromium } from '../../test/support/chromium';
import type * as ClientModule from '../src/index.ts';
import { errorStep, type ScriptedServer, scriptedServer } from './support/scripted-server';

/**
 * The client bundled for browsers (esbuild, platform browser: a Node built-in would fail
 * the build) and run in Debian's Chromium from one origin against an API on another, which
 * sends CORS headers: a create retried after a 503 with one Idempotency-Key, a list whose
 * rate-limit headers the page can read, and a typed error. Without Chromium the test is
 * skipped locally with a warning, and fails in CI.
 */
const GLOBAL = 'AnimalStore';

/** Serves a page (no inline script) that loads the bundle, from its own origin. */
async function pageServer(bundle: string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url === '/client.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle);
      return;
    }
    response
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html lang="en"><title>client</title><script src="/client.js"></script></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

describeInBrowser("the client's browser test")('the client in a browser', () => {
  let api: ScriptedServer;
  let page: { url: string; server: Server };
  let context: BrowserContext;
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [path.join(__dirname, '..', 'src', 'index.ts')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      globalName: GLOBAL,
      target: 'es2022',
    });
    page = await pageServer(bundle.outputFiles[0]?.text ?? '');
    const rateLimit = {
      'X-RateLimit-Limit': '300',
      'X-RateLimit-Remaining': '297',
      'X-RateLimit-Reset': '1893456060',
      'RateLimit-Policy': '"minute";q=300;w=60, "day";q=10000;w=86400',
      RateLimit: '"minute";r=297;t=12, "day";r=9997;t=3612',
    };
    api = await scriptedServer(
      (base) => [
        errorStep(503, 'service_unavailable', { 'Retry-After': '1', ...rateLimit }),
        {
          status: 201,
          headers: { Location: `${base}/pets/1`, ...rateLimit },
          body: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
        },
        { status: 200, headers: { Link: `<${base}/pets?cursor=a>; rel="next"`, ...rateLimit }, body: [] },
        errorStep(404, 'pet_not_found', rateLimit),
      ],
      { cors: true },
    );
    browser = await launchChromium();
    context = browser.context;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    page?.server.closeAllConnections();
    page?.server.close();
  });

  it('creates with a retry, lists, reads the rate-limit state and gets a typed error, across origins', async () => {
    const tab = await context.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(page.url);
    const result = await tab.evaluate(
      async ({ baseUrl, name }) => {
        const store = (globalThis as unknown as Record<string, typeof ClientModule>)[
          name
        ] as typeof ClientModule;
        const sleeps: number[] = [];
        const client = store.createClient({
          baseUrl,
          apiKey: 'ask_browser',
          timing: { sleep: async (ms) => void sleeps.push(ms) },
        });
        const pet = await client.createPet({ name: 'Rex', categoryId: 1 });
        const list = await client.listPets({ limit: 1 });
        const missing = await client.getPet(9).catch((error: unknown) => error);
        return {
          pet,
          list,
          sleeps,
          rateLimit: client.rateLimit,
          missing:
            missing instanceof store.ApiError
              ? { code: missing.code, retry: missing.retry }
              : String(missing),
        };
      },
      { baseUrl: api.baseUrl, name: GLOBAL },
    );
    expect(result).toEqual({
      pet: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      list: { pets: [], next: `${api.baseUrl}/pets?cursor=a` },
      sleeps: [1000],
      rateLimit: {
        limit: 300,
        remaining: 297,
        reset: 1893456060,
        windows: [
          { name: 'minute', quota: 300, windowSeconds: 60, remaining: 297, resetSeconds: 12 },
          { name: 'day', quota: 10000, windowSeconds: 86400, remaining: 9997, resetSeconds: 3612 },
        ],
      },
      missing: { code: 'pet_not_found', retry: { attempts: 1, waitedMs: 0, reason: 'not-retryable' } },
    });
    const [first, second] = api.requests;
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/pets',
      'POST /v1/pets',
      'GET /v1/pets?limit=1',
      'GET /v1/pets/9',
    ]);
    expect(first?.headers['idempotency-key']).toMatch(/^"[0-9a-f-]{36}"$/);
    expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
    expect(first?.headers.origin).toBe(new URL(page.url).origin);
    expect(errors).toEqual([]);
  }, 60_000);
});
