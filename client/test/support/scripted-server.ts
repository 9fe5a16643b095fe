import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server does with one request: answer, cut the connection, or never answer. */
export type Step =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown }
  | 'destroy'
  | 'hang';

export interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  /** Every request but CORS preflights, in arrival order. */
  readonly requests: Recorded[];
  close(): Promise<void>;
}

/** The headers a browser client may read across origins. */
export const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'Location',
];

/** An Error body answer, as the service sends them. */
export function errorStep(status: number, code: string, headers: Record<string, string> = {}): Step {
  return { status, headers, body: { code, message: `A ${code} answer.`, status } };
}

/**
 * A loopback HTTP server that answers the n-th request with `steps[n]` (or with the steps
 * made from its base URL); past the end it answers 599 so that an unexpected extra request
 * fails the test. With `cors` it answers preflights and exposes the headers a browser reads.
 */
export async function scriptedServer(
  script: readonly Step[] | ((baseUrl: string) => readonly Step[]),
  options: { cors?: boolean } = {},
): Promise<ScriptedServer> {
  const requests: Recorded[] = [];
  let steps: readonly Step[] = [];
  const cors = (response: ServerResponse) => {
    if (!options.cors) return;
    response.setHeader('Access-Control-Allow-Origin', '*');
    response.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (options.cors && request.method === 'OPTIONS') {
        cors(response);
        response.setHeader('Access-Control-Allow-Methods', 'GET, POST');
        response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key');
        response.writeHead(204).end();
        return;
      }
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const step = steps[requests.length - 1] ?? { status: 599, body: { unexpected: 'request' } };
      if (step === 'destroy') {
        request.socket.destroy();
        return;
      }
      if (step === 'hang') return;
      cors(response);
      const body = step.body === undefined ? '' : JSON.stringify(step.body);
      response.writeHead(step.status, {
        ...(body === '' ? {} : { 'Content-Type': 'application/json' }),
        ...step.headers,
      });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  steps = typeof script === 'function' ? script(baseUrl) : script;
  return {
    baseUrl,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
