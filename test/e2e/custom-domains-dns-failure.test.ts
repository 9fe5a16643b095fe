import { createSocket } from 'node:dgram';
import { type CapturedOutput, captureOutput } from '../support/capture-output';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

// This file reads the logs.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';

/**
 * A resolver that cannot answer: the verification is a DNS failure, answered and logged as one
 * (it was answered 503 `service_unavailable` and logged "store unavailable").
 */

let t: DomainsTestApi;

/** A loopback UDP port nothing listens on: bound, read, then freed. */
async function closedUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

beforeAll(async () => {
  t = await startDomainsTestApi({ dnsResolver: `127.0.0.1:${await closedUdpPort()}` });
});

afterAll(async () => {
  await t.close();
});

function logLines(output: CapturedOutput): Record<string, unknown>[] {
  return output.lines().flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

it('answers 503 dns_unavailable and logs a DNS failure, not the store', async () => {
  const { consoleToken } = await t.createProject('pro');
  const output = captureOutput();
  let verified;
  try {
    expect((await t.console(consoleToken, 'POST', '/domains', { name: 'shop.no-dns.test' })).status).toBe(
      201,
    );
    verified = await t.console(consoleToken, 'POST', '/domains/shop.no-dns.test/verify');
  } finally {
    output.restore();
  }

  expect(verified).toMatchObject({
    status: 503,
    body: {
      code: 'dns_unavailable',
      status: 503,
      message: 'DNS could not be asked about shop.no-dns.test; retry after the Retry-After delay.',
    },
  });
  expect(verified.headers.get('retry-after')).toBe('1');
  const errors = logLines(output).filter((line) => line.level === 'ERROR');
  expect(errors).toEqual([expect.objectContaining({ message: 'DNS unavailable' })]);
  expect(JSON.stringify(errors)).toMatch(/DNS lookup of \w+ shop\.no-dns\.test failed/);
  expect(output.text()).not.toMatch(/store unavailable/);
});
