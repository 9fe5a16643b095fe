import { RateLimiter, type CounterStore } from '../lambda/core/rate-limiter';
import { now } from '../lambda/shared/clock';
import { startLocalApi } from '../local/server';

/** A counter store that admits every request without a store call: the limiter's cost taken away. */
const admitAll: CounterStore = {
  countInSameMinute: async (_counterId, _subject, minute) => ({
    counted: true,
    state: { minute, minuteCount: 1, dayCount: 1 },
  }),
  countInNewMinute: async (_counterId, _subject, minute) => ({
    counted: true,
    state: { minute, minuteCount: 1, dayCount: 1 },
  }),
  read: async () => undefined,
  ban: async () => undefined,
};

/**
 * The local API for the bench, in its own process, on free ports with an in-memory
 * store. Prints one JSON line with its addresses on stderr once it listens: stdout
 * carries the request log, which the bench sends to a file.
 *
 * With BENCH_LIMITER=off the server is given a limiter whose store admits every
 * request without a DynamoDB call (see doc/performance.md).
 */
async function main(): Promise<void> {
  const limiter = process.env.BENCH_LIMITER === 'off' ? new RateLimiter(admitAll, now) : undefined;
  const api = await startLocalApi({ port: 0, dynamodbPort: 0, ...(limiter ? { limiter } : {}) });
  process.stderr.write(
    `${JSON.stringify({ baseUrl: api.baseUrl, dynamodbEndpoint: api.dynamodbEndpoint })}\n`,
  );
  process.on('SIGTERM', () => {
    api.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
