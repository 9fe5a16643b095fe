import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP relay in front of the store: the API talks to the relay, and a test cuts it to make the
 * store unreachable (every connection closed at once, unanswered, as a dead store's are) and
 * joins it again. The store itself keeps running, with its data.
 */
export interface StoreRelay {
  /** The relay's address, for the API's `dynamodbEndpoint`. */
  readonly endpoint: string;
  /** Forwards to the store's port, or closes every connection while undefined. */
  forwardTo(port: number | undefined): void;
  close(): Promise<void>;
}

export async function startStoreRelay(port: number | undefined): Promise<StoreRelay> {
  let target = port;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    client.on('error', () => undefined);
    if (target === undefined) {
      client.destroy();
      return;
    }
    const upstream = connect(target, '127.0.0.1');
    track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    forwardTo: (next) => {
      target = next;
      // Connections kept alive would still reach the store: a cut closes them all.
      if (next === undefined) for (const socket of sockets) socket.destroy();
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
