import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** A response read whole, as text. */
export interface TextAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * Sends the request `start` makes (node:http or node:https, with any options: a CA, a
 * lookup, a server name) and reads its answer whole: `textOf((done) => request(url, options, done))`.
 */
export function textOf(
  start: (onResponse: (response: IncomingMessage) => void) => ClientRequest,
): Promise<TextAnswer> {
  return new Promise((resolve, reject) => {
    const request = start((response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}
