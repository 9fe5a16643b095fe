import { jsonResponse } from '../../../lambda/api/http';
import { PLANS } from '../../../lambda/core/plans';
import type { CounterState } from '../../../lambda/core/rate-limit';
import { type CounterStore, RateLimiter } from '../../../lambda/core/rate-limiter';
import { apiHandler } from '../../../lambda/middleware/api-handler';
import { lambdaContext, proxyEvent } from '../../support/events';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 30);
const MINUTE = Math.floor(NOW / 60_000);
/** The limits of the proxy events' caller (a key of a Free project). */
const FREE = PLANS.free.limits;

/** A counter store whose answer the test releases, to see what runs while the count is pending. */
function gatedStore(state: CounterState | undefined) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const store: CounterStore = {
    countInSameMinute: async () => (await gate, state ? { counted: true, state } : { counted: false }),
    countInNewMinute: async () => (await gate, state ? { counted: true, state } : { counted: false }),
    read: async () => ({ minute: MINUTE, minuteCount: FREE.perMinute, dayCount: FREE.perMinute }),
    ban: async () => undefined,
  };
  return { store, release };
}

const admittedState = { minute: MINUTE, minuteCount: 1, dayCount: 1 };
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('rate-limit middleware', () => {
  it('runs a read operation beside the count, not after it', async () => {
    const { store, release } = gatedStore(admittedState);
    let started = false;
    const handler = apiHandler(
      'listPets',
      async () => {
        started = true;
        return jsonResponse(200, []);
      },
      { limiter: new RateLimiter(store, () => NOW), clock: () => NOW },
    );
    const pending = handler(proxyEvent(), lambdaContext);
    await tick();
    expect(started).toBe(true);
    release();
    const response = await pending;
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['X-RateLimit-Remaining']).toBe(String(FREE.perMinute - 1));
  });

  it('lets a write start only once the request is admitted', async () => {
    const { store, release } = gatedStore(admittedState);
    let started = false;
    const handler = apiHandler(
      'createPet',
      async () => {
        started = true;
        return jsonResponse(201, {});
      },
      { limiter: new RateLimiter(store, () => NOW), clock: () => NOW },
    );
    const pending = handler(
      proxyEvent({
        httpMethod: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"a","categoryId":1}',
      }),
      lambdaContext,
    );
    await tick();
    expect(started).toBe(false);
    release();
    expect((await pending).statusCode).toBe(201);
    expect(started).toBe(true);
  });

  it('never lets a refused write run', async () => {
    const { store, release } = gatedStore(undefined);
    let started = false;
    const handler = apiHandler(
      'createPet',
      async () => {
        started = true;
        return jsonResponse(201, {});
      },
      { limiter: new RateLimiter(store, () => NOW), clock: () => NOW },
    );
    release();
    const response = await handler(
      proxyEvent({
        httpMethod: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"a","categoryId":1}',
      }),
      lambdaContext,
    );
    expect(response.statusCode).toBe(429);
    expect(started).toBe(false);
  });

  it('fails closed with 503 and Retry-After when the counters cannot be reached', async () => {
    const failing: CounterStore = {
      countInSameMinute: async () => {
        throw new Error('down');
      },
      countInNewMinute: async () => {
        throw new Error('down');
      },
      read: async () => undefined,
      ban: async () => undefined,
    };
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const handler = apiHandler('listPets', async () => jsonResponse(200, []), {
        limiter: new RateLimiter(failing, () => NOW),
        clock: () => NOW,
      });
      const response = await handler(proxyEvent(), lambdaContext);
      expect(response.statusCode).toBe(503);
      expect(response.headers?.['Retry-After']).toBe('1');
      expect(JSON.parse(response.body)).toMatchObject({ code: 'service_unavailable', status: 503 });
    } finally {
      errors.mockRestore();
    }
  });
});
