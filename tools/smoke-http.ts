import type { LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * The smoke test's HTTP client: a user's requests, over HTTP or HTTPS (certificates checked),
 * with any header (fetch forbids some, e.g. a preflight's), and `*.localhost` names on the
 * loopback address, as curl and browsers resolve them (RFC 6761): Node's resolver does not, and
 * local mode serves every project at `<project>.localhost`.
 */

export interface SmokeRequest {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body: sent with `Content-Type: application/json`. */
  readonly json?: unknown;
}

export interface SmokeResponse {
  readonly status: number;
  /** Header names lower-cased, repeated values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** How long one request may take, connecting included: a service that hangs is a failed check. */
export const REQUEST_TIMEOUT_MS = 15_000;

const LOOPBACK = '127.0.0.1';

/** `*.localhost` (and `localhost`) on the loopback address; every other name through the system's resolver. */
export const loopbackLookup: LookupFunction = (hostname, options, callback) => {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) {
    if (options.all) callback(null, [{ address: LOOPBACK, family: 4 }]);
    else callback(null, LOOPBACK, 4);
    return;
  }
  dnsLookup(hostname, options, callback);
};

/** Whether a host is this machine: local mode's addresses are then `<project>.localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** Sends one request and reads the whole answer; a network failure or timeout rejects with one line. */
export function send(url: string, request: SmokeRequest = {}, signal?: AbortSignal): Promise<SmokeResponse> {
  const target = new URL(url);
  const body = request.json === undefined ? undefined : Buffer.from(JSON.stringify(request.json));
  const headers: Record<string, string> = {
    ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } : {}),
    ...request.headers,
  };
  const open = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = open(target, {
      method: request.method ?? 'GET',
      headers,
      lookup: loopbackLookup,
      timeout: REQUEST_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)),
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`${request.method ?? 'GET'} ${url}: ${networkReason(error)}`)),
    );
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', (error) => reject(new Error(`${url}: the answer was cut (${error.message})`)));
      incoming.on('end', () => {
        const answer: Record<string, string> = {};
        for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
          const name = (incoming.rawHeaders[index] ?? '').toLowerCase();
          const value = incoming.rawHeaders[index + 1] ?? '';
          answer[name] = answer[name] === undefined ? value : `${answer[name]}, ${value}`;
        }
        resolve({
          status: incoming.statusCode ?? 0,
          headers: answer,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    outgoing.end(body);
  });
}

/** A network failure in an operator's words (the code is a developer's). */
function networkReason(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'nothing listens there';
    case 'ENOTFOUND':
      return 'no such host';
    case 'ECONNRESET':
      return 'the connection was cut';
    case 'ABORT_ERR':
      return 'interrupted';
    default:
      return error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')
        ? `its TLS certificate is not valid for this name (${error.message})`
        : error.message;
  }
}
