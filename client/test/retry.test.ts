import {
  type AnimalStoreError,
  ApiError,
  createClient,
  NetworkError,
  type ClientOptions,
  type RetryEvent,
  type RetryOptions,
} from '../src/index.ts';
import { backoffDelay, DEFAULT_RETRY } from '../src/retry.ts';
import { fakeTiming } from './support/fake-timing';
import { errorStep, type ScriptedServer, scriptedServer, type Step } from './support/scripted-server';

/**
 * The retry rules against loopback servers that answer as scripted: real HTTP, with a
 * clock that moves only when the client sleeps, so no test waits or depends on chance.
 */

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const ok = (body: unknown = []): Step => ({ status: 200, body });
const created: Step = { status: 201, body: PET };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  steps: Step[] | ((baseUrl: string) => Step[]),
  retry: RetryOptions = {},
  randoms: number[] = [],
) {
  server = await scriptedServer(steps);
  const { timing, sleeps } = fakeTiming(randoms);
  const events: RetryEvent[] = [];
  const options: ClientOptions = {
    baseUrl: server.baseUrl,
    apiKey: 'ask_test',
    retry,
    timing,
    onRetry: (event) => events.push(event),
  };
  return { client: createClient(options), requests: server.requests, sleeps, events };
}

/** The rejection of `call`, which must be an instance of `type`. */
async function failure<T>(call: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  const error: unknown = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

describe('429 and 503 wait Retry-After', () => {
  it('429 with delay-seconds: waits exactly that long, then succeeds', async () => {
    const { client, requests, sleeps, events } = await setup([
      errorStep(429, 'rate_limited', { 'Retry-After': '3' }),
      ok([PET]),
    ]);
    await expect(client.listPets()).resolves.toEqual({ pets: [PET] });
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([3000]);
    expect(events).toEqual([{ attempt: 1, delayMs: 3000, kind: 'retry-after', status: 429 }]);
  });

  it('429 with an HTTP date: waits until then by the client clock', async () => {
    // fakeTiming's clock stands at 2030-01-01T00:00:00Z.
    const { client, sleeps } = await setup([
      errorStep(429, 'rate_limited', { 'Retry-After': 'Tue, 01 Jan 2030 00:00:07 GMT' }),
      ok(),
    ]);
    await client.listPets();
    expect(sleeps).toEqual([7000]);
  });

  it('503 with Retry-After: waits it out', async () => {
    const { client, requests, sleeps } = await setup([
      errorStep(503, 'service_unavailable', { 'Retry-After': '1' }),
      ok(),
    ]);
    await client.listPets();
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
  });

  it('a Retry-After beyond maxRetryAfterMs fails at once, with the wait in the error', async () => {
    const { client, requests, sleeps } = await setup(
      [errorStep(429, 'temporarily_banned', { 'Retry-After': '120' })],
      { maxRetryAfterMs: 60_000 },
    );
    const error = await failure(client.listPets(), ApiError);
    expect({ status: error.status, code: error.code, retry: error.retry }).toEqual({
      status: 429,
      code: 'temporarily_banned',
      retry: { attempts: 1, waitedMs: 0, reason: 'retry-after-beyond-cap', retryAfterMs: 120_000 },
    });
    expect(error.body).toEqual({
      code: 'temporarily_banned',
      message: 'A temporarily_banned answer.',
      status: 429,
    });
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('a Retry-After that would end past the deadline fails at once', async () => {
    const { client, sleeps } = await setup([errorStep(429, 'rate_limited', { 'Retry-After': '30' })], {
      deadlineMs: 10_000,
    });
    const error = await failure(client.listPets(), ApiError);
    expect(error.retry).toEqual({ attempts: 1, waitedMs: 0, reason: 'deadline', retryAfterMs: 30_000 });
    expect(sleeps).toEqual([]);
  });

  it('without a readable Retry-After, 429 and 503 back off like other 5xx', async () => {
    const { client, sleeps, events } = await setup(
      [errorStep(503, 'service_unavailable'), errorStep(429, 'rate_limited', { 'Retry-After': '1.5' }), ok()],
      { baseDelayMs: 100 },
      [0.5, 0.5],
    );
    await client.listPets();
    expect(sleeps).toEqual([50, 100]);
    expect(events.map((event) => event.kind)).toEqual(['backoff', 'backoff']);
  });
});

describe('network errors and other 5xx back off with full jitter', () => {
  it('waits random × min(cap, base × 2^retry): exact delays from the given random numbers', async () => {
    const { client, requests, sleeps, events } = await setup(
      [
        errorStep(500, 'internal_error'),
        errorStep(502, 'bad_gateway'),
        errorStep(504, 'gateway_timeout'),
        errorStep(500, 'internal_error'),
        ok([PET]),
      ],
      { baseDelayMs: 100, maxDelayMs: 500, maxAttempts: 5 },
      [0.5, 0.25, 0.75, 0.999],
    );
    await expect(client.listPets()).resolves.toEqual({ pets: [PET] });
    // Ceilings 100, 200, 400, then the cap 500.
    expect(sleeps).toEqual([50, 50, 300, 499]);
    expect(requests).toHaveLength(5);
    expect(events.map((event) => [event.attempt, event.status])).toEqual([
      [1, 500],
      [2, 502],
      [3, 504],
      [4, 500],
    ]);
  });

  it('full jitter spans [0, ceiling): 0 at the bottom, ceiling − 1 at the top, never above the cap', () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    const top = 1 - Number.EPSILON;
    const ceilings = [100, 200, 400, 800, 1000, 1000, 1000];
    expect(ceilings.map((_, retry) => backoffDelay(retry, options, () => 0))).toEqual(ceilings.map(() => 0));
    expect(ceilings.map((_, retry) => backoffDelay(retry, options, () => top))).toEqual(
      ceilings.map((ceiling) => ceiling - 1),
    );
    expect(backoffDelay(60, options, () => top)).toBe(999);
  });

  it('gives up after maxAttempts with the last Error body and what the retries did', async () => {
    const { client, requests, sleeps } = await setup(
      [errorStep(500, 'internal_error'), errorStep(500, 'internal_error'), errorStep(500, 'internal_error')],
      { baseDelayMs: 100, maxAttempts: 3 },
      [0.5, 0.5],
    );
    const error = await failure(client.listPets(), ApiError);
    expect({ code: error.code, retry: error.retry }).toEqual({
      code: 'internal_error',
      retry: { attempts: 3, waitedMs: 150, reason: 'max-attempts' },
    });
    expect(requests).toHaveLength(3);
    expect(sleeps).toEqual([50, 100]);
  });

  it('a connection cut by the server is retried', async () => {
    const { client, requests, sleeps } = await setup(['destroy', ok([PET])], { baseDelayMs: 100 }, [0.5]);
    await expect(client.listPets()).resolves.toEqual({ pets: [PET] });
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([50]);
  });

  it('network errors until maxAttempts end in a NetworkError with the cause', async () => {
    const { client } = await setup(['destroy', 'destroy'], { maxAttempts: 2 }, [0]);
    const error = await failure(client.listPets(), NetworkError);
    expect(error.retry).toEqual({ attempts: 2, waitedMs: 0, reason: 'max-attempts' });
    expect(error.cause).toEqual(expect.objectContaining({ name: 'TypeError' }));
  });

  it('the deadline: no wait is started that would end past it', async () => {
    // Ceilings 20, 40, 80 s: waits 19.98 and 39.96 s end at 59.94 s; the next (79.92 s) would end
    // past the 100 s deadline. The waits are the fake clock's, the attempts real: the 40 s left
    // for them keep a loaded machine's slow loopback answers clear of the deadline (with 0.4 s
    // left, a third answer once came after it and the call ended in a NetworkError).
    const { client, requests, sleeps } = await setup(
      [errorStep(500, 'internal_error'), errorStep(500, 'internal_error'), errorStep(500, 'internal_error')],
      { baseDelayMs: 20_000, maxDelayMs: 100_000, deadlineMs: 100_000, maxAttempts: 10 },
      [0.999, 0.999, 0.999],
    );
    const error = await failure(client.listPets(), ApiError);
    expect(error.retry).toEqual({ attempts: 3, waitedMs: 59_940, reason: 'deadline' });
    expect(requests).toHaveLength(3);
    expect(sleeps).toEqual([19_980, 39_960]);
  });

  it('the deadline also ends an attempt that gets no answer', async () => {
    // The clock stands still here, so the whole deadline is spent waiting for the answer.
    const { client, requests } = await setup(['hang'], { deadlineMs: 200 });
    const error = await failure(client.listPets(), NetworkError);
    expect(error.retry).toEqual({ attempts: 1, waitedMs: 0, reason: 'deadline' });
    expect(error.message).toBe('No answer from the service before the deadline.');
    expect(requests).toHaveLength(1);
  });
});

describe('4xx other than 429 and 409-in-flight are final', () => {
  it.each([
    [400, 'invalid_parameter'],
    [401, 'invalid_api_key'],
    [404, 'pet_not_found'],
    [409, 'conflict'],
    [410, 'gone'],
  ])('%i %s: one request, a typed ApiError', async (status, code) => {
    // A Retry-After on them changes nothing (409 is in flight only for a request with a key).
    const { client, requests, sleeps } = await setup([errorStep(status, code, { 'Retry-After': '1' })]);
    const error = await failure(client.getPet(7), ApiError);
    expect({ status: error.status, code: error.code, retry: error.retry }).toEqual({
      status,
      code,
      retry: { attempts: 1, waitedMs: 0, reason: 'not-retryable' },
    });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/pets/7']);
    expect(sleeps).toEqual([]);
  });

  it('an answer without the Error body still gives a typed ApiError', async () => {
    const { client } = await setup([{ status: 403, body: { message: 'Forbidden' } }]);
    const error = await failure(client.listPets(), ApiError);
    expect(error.body).toEqual({
      code: 'unexpected_response',
      message: 'The service answered 403 without an Error body.',
      status: 403,
    });
  });
});

describe('POST is retried only with an Idempotency-Key', () => {
  const KEY = /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/;

  it('sends a generated key as a quoted string, the same on every retry, with the same body', async () => {
    const { client, requests, sleeps } = await setup(
      [
        errorStep(503, 'service_unavailable', { 'Retry-After': '1' }),
        'destroy',
        errorStep(500, 'internal_error'),
        created,
      ],
      { baseDelayMs: 100 },
      [0.5, 0.5],
    );
    await expect(client.createPet({ name: 'Rex', categoryId: 1 })).resolves.toEqual(PET);
    expect(sleeps).toEqual([1000, 100, 200]);
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(KEY);
    expect(keys).toEqual([keys[0], keys[0], keys[0], keys[0]]);
    expect(requests.map((r) => [r.method, r.url, r.headers['content-type'], r.body])).toEqual(
      Array(4).fill(['POST', '/v1/pets', 'application/json', '{"name":"Rex","categoryId":1}']),
    );
  });

  it('each create gets its own key', async () => {
    const { client, requests } = await setup([created, created]);
    await client.createPet({ name: 'Rex', categoryId: 1 });
    await client.createPet({ name: 'Rex', categoryId: 1 });
    const [first, second] = requests.map((r) => r.headers['idempotency-key']);
    expect(first).toMatch(KEY);
    expect(second).toMatch(KEY);
    expect(first).not.toBe(second);
  });

  it("sends the caller's key instead, escaped as a structured-field string", async () => {
    const { client, requests } = await setup([created, created]);
    await client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'order-42' });
    await client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'a"b\\c' });
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual(['"order-42"', '"a\\"b\\\\c"']);
  });

  it('refuses a key a quoted string cannot carry, before sending anything', async () => {
    const { client, requests } = await setup([created]);
    await expect(client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'clé' })).rejects.toThrow(
      RangeError,
    );
    await expect(client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: '' })).rejects.toThrow(
      RangeError,
    );
    expect(requests).toEqual([]);
  });

  it('a 409 with Retry-After to a request with a key is a create in flight: waited out', async () => {
    const { client, requests, sleeps } = await setup([
      errorStep(409, 'idempotency_key_in_use', { 'Retry-After': '2' }),
      created,
    ]);
    await expect(client.createPet({ name: 'Rex', categoryId: 1 })).resolves.toEqual(PET);
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  it('a 409 without Retry-After is final', async () => {
    const { client, requests } = await setup([errorStep(409, 'idempotency_key_in_use')]);
    const error = await failure(client.createPet({ name: 'Rex', categoryId: 1 }), ApiError);
    expect(error.retry.reason).toBe('not-retryable');
    expect(requests).toHaveLength(1);
  });

  it.each<[string, Step, abstract new (...args: never[]) => AnimalStoreError, object]>([
    [
      'a 503 with Retry-After',
      errorStep(503, 'service_unavailable', { 'Retry-After': '1' }),
      ApiError,
      { retryAfterMs: 1000 },
    ],
    [
      'a 429 with Retry-After',
      errorStep(429, 'rate_limited', { 'Retry-After': '1' }),
      ApiError,
      { retryAfterMs: 1000 },
    ],
    ['a 500', errorStep(500, 'internal_error'), ApiError, {}],
    ['a cut connection', 'destroy', NetworkError, {}],
  ])('with idempotencyKey: false, %s is not retried', async (_, step, type, extra) => {
    const { client, requests, sleeps } = await setup([step, created]);
    const error = await failure(
      client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: false }),
      type,
    );
    expect(error.retry).toEqual({ attempts: 1, waitedMs: 0, reason: 'not-idempotent', ...extra });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers['idempotency-key']).toBeUndefined();
    expect(sleeps).toEqual([]);
  });
});

describe('the rate-limit state', () => {
  const LIMITED = {
    'X-RateLimit-Limit': '60',
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': '1893456060',
    'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
    RateLimit: '"minute";r=0;t=5, "day";r=940;t=3605',
  };

  it('is read from the headers of every answer, errors included, and kept when an answer has none', async () => {
    const { client } = await setup([
      errorStep(429, 'rate_limited', { ...LIMITED, 'Retry-After': '120' }),
      { status: 200, body: [] },
    ]);
    expect(client.rateLimit).toBeUndefined();
    await expect(client.listPets()).rejects.toThrow(ApiError);
    const expected = {
      limit: 60,
      remaining: 0,
      reset: 1893456060,
      windows: [
        { name: 'minute', quota: 60, windowSeconds: 60, remaining: 0, resetSeconds: 5 },
        { name: 'day', quota: 1000, windowSeconds: 86400, remaining: 940, resetSeconds: 3605 },
      ],
    };
    expect(client.rateLimit).toEqual(expected);
    await client.listPets();
    expect(client.rateLimit).toEqual(expected);
  });

  it('without the RateLimit headers has no windows', async () => {
    const {
      'X-RateLimit-Limit': limit,
      'X-RateLimit-Remaining': remaining,
      'X-RateLimit-Reset': reset,
    } = LIMITED;
    const headers = {
      'X-RateLimit-Limit': limit,
      'X-RateLimit-Remaining': remaining,
      'X-RateLimit-Reset': reset,
    };
    const { client } = await setup([{ status: 200, headers, body: [] }]);
    await client.listPets();
    expect(client.rateLimit).toEqual({ limit: 60, remaining: 0, reset: 1893456060, windows: [] });
  });
});

describe('pagination', () => {
  it('follows Link rel="next" among other links, relative or absolute, until there is none', async () => {
    const pets = [1, 2, 3].map((id) => ({ ...PET, id }));
    const { client, requests } = await setup((base) => [
      {
        status: 200,
        headers: { Link: `</v1/pets?cursor=a>; rel="next", <${base}/x>; rel="help"` },
        body: [pets[0]],
      },
      {
        status: 200,
        headers: { Link: `<${base}/x>; rel=help, <${base}/pets?cursor=b>; rel="prev next"` },
        body: [pets[1]],
      },
      { status: 200, body: [pets[2]] },
    ]);
    const seen = [];
    for await (const pet of client.allPets({ status: 'available', limit: 1 })) seen.push(pet);
    expect(seen).toEqual(pets);
    expect(requests.map((r) => r.url)).toEqual([
      '/v1/pets?status=available&limit=1',
      '/v1/pets?cursor=a',
      '/v1/pets?cursor=b',
    ]);
  });

  it('refuses a next link to another origin: the API key would go with it', async () => {
    const { client, requests } = await setup([
      {
        status: 200,
        headers: { Link: '<http://example.invalid/v1/pets?cursor=a>; rel="next"' },
        body: [PET],
      },
    ]);
    const error = await failure(client.listPets(), ApiError);
    expect(error.code).toBe('unexpected_response');
    expect(requests).toHaveLength(1);
  });
});

describe('cancelling', () => {
  it("the caller's signal ends a call during a wait, with the signal's reason", async () => {
    server = await scriptedServer([errorStep(503, 'service_unavailable', { 'Retry-After': '1' }), ok()]);
    const controller = new AbortController();
    const reason = new Error('stop');
    const client = createClient({
      baseUrl: server.baseUrl,
      timing: {
        sleep: async () => {
          controller.abort(reason);
          controller.signal.throwIfAborted();
        },
      },
    });
    await expect(client.listPets({}, { signal: controller.signal })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });
});
