import { Agent, request as httpRequest } from 'node:http';
import { checkResponse } from './contract';

/**
 * HTTP without fetch's guard rails, for hostile requests: any method Node's client
 * can send, the request target exactly as given (already percent-encoded), repeated
 * headers in order, and a body of raw bytes.
 */
export interface RawRequest {
  readonly method: string;
  /** The request target, e.g. `/v1/pets?limit=1`; sent as is. */
  readonly path: string;
  /** Header lines in order; a name may repeat. `Host` is added unless given. */
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: Buffer | string;
  /** The loopback address to send from (e.g. `127.0.0.2`), to stand for another client. @default the system's choice */
  readonly localAddress?: string;
}

export interface RawResponse {
  readonly status: number;
  /** Header names lower-cased, repeated values joined with `, ` (as fetch does). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** Sends one request to `origin` (`http://127.0.0.1:1234`) and reads the whole answer. */
export function rawRequest(origin: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  const lines: string[] = [];
  if (!request.headers?.some(([name]) => name.toLowerCase() === 'host'))
    lines.push('Host', `${hostname}:${port}`);
  for (const [name, value] of request.headers ?? []) lines.push(name, value);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  if (body && !request.headers?.some(([name]) => name.toLowerCase() === 'content-length')) {
    lines.push('Content-Length', String(body.length));
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      agent,
      host: hostname,
      port: Number(port),
      method: request.method,
      path: request.path,
      // The flat [name, value, name, value, …] form keeps repeated headers and their order.
      headers: lines as unknown as Record<string, string>,
      setHost: false,
      ...(request.localAddress === undefined ? {} : { localAddress: request.localAddress }),
    });
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const headers: Record<string, string> = {};
        for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
          const name = (incoming.rawHeaders[index] ?? '').toLowerCase();
          const value = incoming.rawHeaders[index + 1] ?? '';
          headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
        }
        const bytes = Buffer.concat(chunks);
        resolve({ status: incoming.statusCode ?? 0, headers, body: bytes, text: bytes.toString('utf8') });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Validates a raw answer against the OpenAPI document, as every fetch of the
 * end-to-end tests is (see contract.ts); throws a ContractViolation otherwise.
 */
export async function checkRawResponse(
  origin: string,
  request: RawRequest,
  response: RawResponse,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) headers.append(name, value);
  const withBody = request.method !== 'HEAD' && response.status !== 204 && response.status !== 304;
  const asFetch = new Response(withBody ? new Uint8Array(response.body) : null, {
    status: response.status,
    headers,
  });
  await checkResponse(request.method, `${origin}${request.path}`, asFetch);
}

/** Closes the kept-alive sockets, so that the server can close. */
export function closeRawConnections(): void {
  agent.destroy();
}
