import { Agent, request } from 'node:http';
import { msSince } from './figures';

/** One keep-alive connection, as a client that reuses its connection would have. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

export interface Timed {
  readonly status: number;
  readonly ms: number;
  readonly body: string;
}

/** Sends one request and times it until the whole response has arrived. */
export function timedRequest(
  url: string,
  {
    method = 'GET',
    apiKey,
    body,
    headers: extra = {},
  }: { method?: string; apiKey: string; body?: unknown; headers?: Record<string, string> },
): Promise<Timed> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, ...extra };
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: msSince(start), body: text }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** Closes the kept-alive connections. */
export function closeConnections(): void {
  agent.destroy();
}
