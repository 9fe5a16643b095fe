import { jsonResponse } from '../../../lambda/api/http';
import { PLANS } from '../../../lambda/core/plans';
import { type CounterStore, RateLimiter } from '../../../lambda/core/rate-limiter';
import { apiHandler } from '../../../lambda/middleware/api-handler';
import { lambdaContext, proxyEvent } from '../../support/events';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 30);
const MINUTE = Math.floor(NOW / 60_000);

function limiterWith(count: number): RateLimiter {
  const state = { minute: MINUTE, minuteCount: count, dayCount: count };
  const admitsUnderLimit = async () =>
    count < PLANS.free.limits.perMinute
      ? { counted: true as const, state }
      : { counted: false as const, current: state };
  const store: CounterStore = {
    countInSameMinute: admitsUnderLimit,
    countInNewMinute: admitsUnderLimit,
    read: async () => state,
    ban: async () => undefined,
  };
  return new RateLimiter(store, () => NOW);
}

/** Runs a handler with logs and metrics on, returning every JSON line it wrote. */
async function linesOf(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.ANIMAL_STORE_ENVIRONMENT = 'production';
});

describe('request log and metrics', () => {
  const event = proxyEvent({ headers: { Authorization: 'Bearer ask_secret_value', Host: 'h' } });

  it('write one line per request with the correlation id, operation, status, latency and plan, and no header', async () => {
    const handler = apiHandler('listPets', async () => jsonResponse(200, []), {
      limiter: limiterWith(1),
      clock: Date.now,
    });
    const lines = await linesOf(() => handler(event, lambdaContext));
    const requestLines = lines.filter((line) => line.message === 'request');
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      level: 'INFO',
      correlationId: 'request-1',
      operation: 'listPets',
      status: 200,
      plan: 'free',
      latencyMs: expect.any(Number),
    });
    expect(JSON.stringify(lines)).not.toContain('ask_secret_value');
  });

  it('publish Requests and Latency by Environment and Operation only', async () => {
    const handler = apiHandler('listPets', async () => jsonResponse(200, []), {
      limiter: limiterWith(1),
      clock: Date.now,
    });
    const lines = await linesOf(() => handler(event, lambdaContext));
    const emf = lines.find((line) => 'Requests' in line) as Record<string, unknown> & {
      _aws: {
        CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[];
      };
    };
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'AnimalStore',
      Dimensions: [['Environment', 'Operation']],
      Metrics: [{ Name: 'Requests' }, { Name: 'Latency' }],
    });
    expect(emf).toMatchObject({ Environment: 'production', Operation: 'listPets', Requests: 1 });
  });

  it('count errors by code and 429s by plan', async () => {
    const handler = apiHandler('listPets', async () => jsonResponse(200, []), {
      limiter: limiterWith(PLANS.free.limits.perMinute),
      clock: Date.now,
    });
    const lines = await linesOf(() => handler(event, lambdaContext));
    expect(lines.find((line) => 'Errors' in line)).toMatchObject({
      Operation: 'listPets',
      Code: 'rate_limited',
      Errors: 1,
    });
    expect(lines.find((line) => 'RateLimited' in line)).toMatchObject({
      Operation: 'listPets',
      Plan: 'free',
      RateLimited: 1,
    });
    expect(lines.find((line) => line.message === 'request')).toMatchObject({
      status: 429,
      code: 'rate_limited',
    });
  });
});
