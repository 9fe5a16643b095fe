import { RateLimitStore } from '../lambda/store/rate-limit-store';
import { startLocalApi } from '../local/server';

/**
 * The local API for the bench, in its own process, on free ports with an in-memory
 * store. Prints one JSON line with its addresses once it listens.
 *
 * With BENCH_LIMITER=off the limiter's store admits every request without a
 * DynamoDB call: the handler modules build their limiter themselves, so the bench
 * swaps the store's two counting methods before they load (see README, Performance).
 */
async function main(): Promise<void> {
  if (process.env.BENCH_LIMITER === 'off') {
    const admitAll = async (_counterId: string, minute: number) => ({
      counted: true as const,
      state: { minute, minuteCount: 1, dayCount: 1 },
    });
    RateLimitStore.prototype.countInSameMinute = admitAll;
    RateLimitStore.prototype.countInNewMinute = admitAll;
  }
  const api = await startLocalApi({ port: 0, dynamodbPort: 0 });
  process.stdout.write(
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
