import { connect, type Socket } from 'node:net';
import { MAX_BODY_BYTES } from '../../lambda/api/limits';
import { closeRawConnections, rawRequest } from '../support/raw-http';
import { startTestApi, type TestApi } from '../support/test-api';

/** A request body of a valid NewPet, padded with JSON whitespace to exactly `size` bytes. */
function petOfSize(size: number): string {
  const pet = JSON.stringify({ name: 'Exactly At The Limit', categoryId: 1 });
  return pet.padEnd(size, ' ');
}

interface ParsedResponse {
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Parses one whole response (with a Content-Length body) at the start of `bytes`; undefined until it has all arrived. */
function parseResponse(bytes: Buffer): ParsedResponse | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...headerLines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length']);
  const body = bytes.subarray(headEnd + 4);
  if (body.length < length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: body.subarray(0, length).toString('utf8'),
  };
}

/**
 * A connection that sends exactly the bytes a test writes, and reports what the server does:
 * its answer, the end of its side (FIN), and the close, with any error (a reset) on the way.
 */
class RawConnection {
  readonly socket: Socket;
  /** Body bytes written so far (after the head). */
  bodyBytesSent = 0;
  /** Resolves when the server has closed its side. */
  readonly serverEnded: Promise<void>;
  /** Resolves when the socket has closed, with the error that closed it, if any. */
  readonly closed: Promise<Error | undefined>;
  private received = Buffer.alloc(0);
  private readonly waiters: (() => void)[] = [];
  private error: Error | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on('error', (error) => {
      this.error = error;
    });
    this.serverEnded = new Promise((resolve) => socket.once('end', () => resolve()));
    this.closed = new Promise((resolve) => socket.once('close', () => resolve(this.error)));
  }

  static async open(port: number, head: readonly string[]): Promise<RawConnection> {
    // Half-open allowed: the test, not Node, decides when this side stops sending.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    await new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const connection = new RawConnection(socket);
    socket.write(`${[...head, `Host: 127.0.0.1:${port}`].join('\r\n')}\r\n\r\n`);
    return connection;
  }

  sendBody(bytes: string | Buffer): void {
    this.bodyBytesSent += Buffer.byteLength(bytes);
    this.socket.write(bytes);
  }

  /** Sends `bytes` as one chunk of a chunked body. */
  sendChunk(bytes: string): void {
    this.bodyBytesSent += Buffer.byteLength(bytes);
    this.socket.write(`${Buffer.byteLength(bytes).toString(16)}\r\n${bytes}\r\n`);
  }

  /** The server's answer, once it has all arrived; and how much of the body had been sent by then. */
  async response(): Promise<ParsedResponse & { bodyBytesSentBefore: number }> {
    for (;;) {
      const parsed = parseResponse(this.received);
      if (parsed) return { ...parsed, bodyBytesSentBefore: this.bodyBytesSent };
      if (this.socket.readableEnded) throw new Error(`The server closed without an answer: ${this.received}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        this.socket.once('end', resolve);
      });
    }
  }
}

const postPets = (...headers: string[]) => [
  'POST /v1/pets HTTP/1.1',
  'Content-Type: application/json',
  ...headers,
];

function expectPayloadTooLarge(response: ParsedResponse): void {
  expect(response.status).toBe(413);
  expect(response.headers.connection).toBe('close');
  expect(JSON.parse(response.body)).toEqual({
    code: 'payload_too_large',
    message: expect.stringContaining(String(MAX_BODY_BYTES)),
    status: 413,
  });
}

describe('request bodies over the limit (local mode)', () => {
  let t: TestApi;
  let auth: string;
  beforeAll(async () => {
    t = await startTestApi();
    auth = `Authorization: Bearer ${(await t.issueKey()).apiKey}`;
  });
  afterAll(async () => {
    closeRawConnections();
    await t.close();
  });

  it('Content-Length over the limit: 413 at once, before the body is sent, then the server closes', async () => {
    const connection = await RawConnection.open(
      t.api.port,
      postPets(auth, `Content-Length: ${20 * 1024 * 1024}`),
    );
    connection.sendBody('{"name":"Slow"');

    const response = await connection.response();
    expectPayloadTooLarge(response);
    // Nothing more was sent while waiting: the answer came from the announced length alone.
    expect(response.bodyBytesSentBefore).toBeLessThan(MAX_BODY_BYTES);
    await connection.serverEnded;
    connection.socket.end();
    expect(await connection.closed).toBeUndefined();
  });

  it('a chunked body: 413 as soon as the bytes pass the limit, without waiting for its end', async () => {
    const connection = await RawConnection.open(t.api.port, postPets(auth, 'Transfer-Encoding: chunked'));
    for (let sent = 0; sent < MAX_BODY_BYTES; sent += 1024) connection.sendChunk('x'.repeat(1024));
    // One byte past the limit, and no last chunk: only the running total can refuse it.
    connection.sendChunk('x');

    const response = await connection.response();
    expectPayloadTooLarge(response);
    expect(response.bodyBytesSentBefore).toBe(MAX_BODY_BYTES + 1);
    await connection.serverEnded;
    connection.socket.end();
    expect(await connection.closed).toBeUndefined();
  });

  it('a client that goes on sending after the 413 still reads it, and the connection closes without a reset', async () => {
    const size = 256 * 1024;
    const connection = await RawConnection.open(t.api.port, postPets(auth, `Content-Length: ${size}`));
    connection.sendBody(Buffer.alloc(size / 2, 'x'));
    expectPayloadTooLarge(await connection.response());
    await connection.serverEnded;
    // The rest of the announced body, after the server has closed its side: dropped, not reset.
    connection.sendBody(Buffer.alloc(size / 2, 'x'));
    connection.socket.end();
    expect(await connection.closed).toBeUndefined();
  });

  it('a client that writes a large body at once reads the 413 every time, and its next request works', async () => {
    const origin = new URL(t.baseUrl).origin;
    const body = Buffer.alloc(1024 * 1024, 'x');
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await rawRequest(origin, {
        method: 'POST',
        path: '/v1/pets',
        headers: [
          ['Authorization', auth.slice('Authorization: '.length)],
          ['Content-Type', 'application/json'],
        ],
        body,
      });
      expectPayloadTooLarge({ ...response, body: response.text });
    }
    const listed = await rawRequest(origin, {
      method: 'GET',
      path: '/v1/pets',
      headers: [['Authorization', auth.slice('Authorization: '.length)]],
    });
    expect(listed.status).toBe(200);
  });

  it.each([
    ['Content-Length', (body: string) => `Content-Length: ${Buffer.byteLength(body)}`],
    ['chunked', () => 'Transfer-Encoding: chunked'],
  ])('a body of exactly the limit is accepted (%s)', async (framing, header) => {
    const body = petOfSize(MAX_BODY_BYTES);
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    const connection = await RawConnection.open(
      t.api.port,
      postPets(auth, header(body), 'Connection: close'),
    );
    if (framing === 'chunked') {
      connection.sendChunk(body.slice(0, 4096));
      connection.sendChunk(body.slice(4096));
      connection.socket.write('0\r\n\r\n');
    } else {
      connection.sendBody(body);
    }
    const response = await connection.response();
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body)).toMatchObject({ name: 'Exactly At The Limit', categoryId: 1 });
    connection.socket.end();
    expect(await connection.closed).toBeUndefined();
  });
});
