import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { describeInBrowser, launchChromium } from '../support/chromium';
import { startTestApi, type TestApi } from '../support/test-api';

/**
 * CORS as a browser sees it: a page in headless Chromium calls a project's local address
 * with fetch. A JSON POST with a key needs a preflight, so the create succeeding at all
 * shows the preflight passed; the page then reads the headers the service exposes. The same
 * call from a page of another origin fails as a network error. Chromium resolves every
 * `*.localhost` name to loopback itself. Debian's chromium is used; without it the test is
 * skipped locally but fails in CI.
 */

/** What the page's fetch came back with, as plain data (the project compiles without the DOM library). */
interface Outcome {
  readonly ok?: { status: number; headers: Record<string, string | null>; body: unknown };
  readonly failed?: string;
}

/** Runs fetch in the page, so with the page's origin; reads the named response headers. */
function fetchFromPage(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  read: readonly string[],
): Promise<Outcome> {
  return page.evaluate(
    async ({ url, init, read }) => {
      try {
        const response = await fetch(url, init);
        const headers = Object.fromEntries(read.map((name) => [name, response.headers.get(name)]));
        const text = await response.text();
        return {
          ok: { status: response.status, headers, body: text ? (JSON.parse(text) as unknown) : null },
        };
      } catch (error) {
        return { failed: String(error) };
      }
    },
    { url, init, read: [...read] },
  );
}

describeInBrowser('the CORS browser test')('a browser page calling a project address', () => {
  let t: TestApi;
  let pages: Server;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  /** The page server's two origins: the allowed one, and another (same server, other host). */
  let allowedOrigin: string;
  let otherOrigin: string;
  let project: string;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApi();
    pages = createServer((_, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><html lang="en"><title>Pet shop app</title><h1>Pet shop app</h1></html>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    const { port } = pages.address() as AddressInfo;
    allowedOrigin = `http://127.0.0.1:${port}`;
    otherOrigin = `http://localhost:${port}`;
    project = (await t.createProject('pro')).name;
    await t.projects.setAllowedOrigins(project, [allowedOrigin]);
    apiKey = (await t.issueKey({ project })).apiKey;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => pages?.close(() => resolve()));
    await t?.close();
  });

  async function pageAt(pageOrigin: string): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(`${pageOrigin}/`);
    return page;
  }

  const createInit = () => ({
    method: 'POST',
    headers: {
      Authorization: `Bearer ${apiKey}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': '"browser-create-1"',
    },
    body: JSON.stringify({ name: 'Fido', categoryId: 1 }),
  });

  it('creates a pet from the allowed origin (after a preflight) and reads Location and the rate-limit headers', async () => {
    const page = await pageAt(allowedOrigin);
    try {
      const base = t.projectUrl(project);
      const created = await fetchFromPage(page, `${base}/pets`, createInit(), [
        'Location',
        'X-RateLimit-Remaining',
        'X-RateLimit-Limit',
        'RateLimit',
      ]);
      expect(created.failed).toBeUndefined();
      const { status, headers, body } = created.ok ?? { status: 0, headers: {}, body: null };
      expect(status).toBe(201);
      const { id } = body as { id: number };
      expect(headers.Location).toBe(`${base}/pets/${id}`);
      expect(Number(headers['X-RateLimit-Remaining'])).toBeGreaterThanOrEqual(0);
      expect(headers['X-RateLimit-Limit']).not.toBeNull();
      expect(headers.RateLimit).toMatch(/"minute";r=\d+/);

      // An error is readable too: its body and its headers.
      const refused = await fetchFromPage(
        page,
        `${base}/pets`,
        { headers: { Authorization: 'Bearer nope' } },
        ['X-RateLimit-Remaining'],
      );
      expect(refused.ok?.status).toBe(401);
      expect(refused.ok?.body).toMatchObject({ code: 'invalid_api_key', status: 401 });
      expect(refused.ok?.headers['X-RateLimit-Remaining']).not.toBeNull();
    } finally {
      await page.close();
    }
  }, 60_000);

  it('fails as a network error from an origin the project does not allow, for the preflight and a simple GET alike', async () => {
    const page = await pageAt(otherOrigin);
    try {
      const base = t.projectUrl(project);
      const created = await fetchFromPage(page, `${base}/pets`, createInit(), ['Location']);
      expect(created).toEqual({ failed: expect.stringContaining('TypeError') });
      // No preflight needed (no custom header), but the answer is not the page's to read.
      const listed = await fetchFromPage(page, `${base}/openapi.json`, {}, []);
      expect(listed).toEqual({ failed: expect.stringContaining('TypeError') });
    } finally {
      await page.close();
    }
  }, 60_000);
});
