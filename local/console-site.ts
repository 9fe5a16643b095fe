import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { ConsoleBuild } from '../console/build';
import { CONSOLE_SECURITY_HEADERS } from '../console/security-headers';
import { JSON_HEADERS } from '../lambda/api/http';

/**
 * Local mode's static server of the console page at `/console/`, as the console distribution
 * serves it from S3 in AWS: the built files with their Content-Type and Cache-Control, and on
 * every answer the one list of security headers. Files are read once, at start.
 */

/** Where the page lives on the API's port (its API is `/console/api/…`, answered elsewhere). */
export const CONSOLE_PAGE_PATH = '/console/';

interface Served {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/** True for the paths this server answers: `/console` and everything under `/console/` but the API's. */
export function isConsolePagePath(pathname: string): boolean {
  return pathname === '/console' || pathname.startsWith(CONSOLE_PAGE_PATH);
}

function answer(
  response: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
  head: boolean,
): void {
  response.writeHead(status, {
    ...CONSOLE_SECURITY_HEADERS,
    ...headers,
    'Content-Length': String(body.length),
  });
  response.end(head ? undefined : body);
}

function errorAnswer(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
  head: boolean,
  extra: Record<string, string> = {},
): void {
  const body = Buffer.from(JSON.stringify({ code, message, status }));
  answer(response, status, { ...JSON_HEADERS, 'Cache-Control': 'no-store', ...extra }, body, head);
}

/** The request handler of the built page (`buildConsole`'s output). */
export function consoleSite(
  site: ConsoleBuild,
): (request: IncomingMessage, response: ServerResponse) => void {
  const files = new Map<string, Served>();
  for (const file of site.files) {
    const served: Served = {
      body: readFileSync(path.join(site.dir, file.path)),
      headers: { 'Content-Type': file.contentType, 'Cache-Control': file.cacheControl },
    };
    files.set(`${CONSOLE_PAGE_PATH}${file.path}`, served);
    if (file.path === 'index.html') files.set(CONSOLE_PAGE_PATH, served);
  }
  return (request, response) => {
    const method = (request.method ?? 'GET').toUpperCase();
    const head = method === 'HEAD';
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    if (method !== 'GET' && !head) {
      errorAnswer(response, 405, 'method_not_allowed', `${pathname} takes GET and HEAD.`, false, {
        Allow: 'GET, HEAD',
      });
      return;
    }
    // The page's relative links need the trailing slash.
    if (pathname === '/console') {
      answer(
        response,
        301,
        { Location: CONSOLE_PAGE_PATH, 'Cache-Control': 'no-cache' },
        Buffer.alloc(0),
        head,
      );
      return;
    }
    const served = files.get(pathname);
    if (!served) {
      errorAnswer(
        response,
        404,
        'not_found',
        `No console file ${pathname}: the console is at ${CONSOLE_PAGE_PATH}.`,
        head,
      );
      return;
    }
    answer(response, 200, served.headers, served.body, head);
  };
}
