import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  /** The service's base URL through the proxy. */
  readonly baseUrl: string;
  /** Method and `Idempotency-Key` of every request, in arrival order. */
  readonly seen: { method: string; idempotencyKey: string | undefined }[];
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of the service that lets the first POST through, waits for the
 * service's whole answer (the create is committed), and then cuts the client's connection
 * instead of relaying it. Every other request is relayed as is.
 */
export async function cuttingProxy(target: string): Promise<CuttingProxy> {
  const upstream = new URL(target);
  const seen: CuttingProxy['seen'] = [];
  let cut = false;
  const server = createServer((incoming, outgoing) => {
    const key = incoming.headers['idempotency-key'];
    seen.push({ method: incoming.method ?? '', idempotencyKey: Array.isArray(key) ? key.join(',') : key });
    const cutThis = incoming.method === 'POST' && !cut;
    if (cutThis) cut = true;
    const proxied = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          if (cutThis) {
            incoming.socket.destroy();
            return;
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
        });
      },
    );
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/+$/, '')}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
