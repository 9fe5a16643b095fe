import openapi from '../../openapi.json';
import { PLANS } from '../../lambda/core/plans';
import { startTestApi, type TestApi } from '../../test/support/test-api';
import { ApiError, type AnimalStoreClient, createClient, type NewPet, type Pet } from '../src/index.ts';
import { cuttingProxy } from './support/cutting-proxy';
import { fakeTiming } from './support/fake-timing';

/** The client against the real local service: real handlers, real store, real HTTP. */

let service: TestApi;
let apiKey: string;
beforeAll(async () => {
  service = await startTestApi();
  ({ apiKey } = await service.issueKey('pro'));
});
afterAll(() => service.close());

/** A client of the service, and the URLs and last answer of every request it sends. */
function client(key = apiKey): { client: AnimalStoreClient; urls: string[]; last: () => Response } {
  const urls: string[] = [];
  let last: Response | undefined;
  const recording = async (url: string, init: RequestInit) => {
    urls.push(url);
    last = await fetch(url, init);
    return last;
  };
  return {
    client: createClient({ baseUrl: service.baseUrl, apiKey: key, fetch: recording }),
    urls,
    last: () => last as Response,
  };
}

describe('the client against local mode', () => {
  it('creates pets, reads one back, and pages through all of them along Link rel="next"', async () => {
    const { client: store, urls } = client((await service.issueKey('pro')).apiKey);
    const news: NewPet[] = [
      { name: 'Rex', categoryId: 1 },
      { name: 'Tom', categoryId: 2, status: 'sold' },
      { name: 'Kit', categoryId: 2, status: 'pending' },
      { name: 'Bo', categoryId: 3, status: 'sold' },
      { name: 'Max', categoryId: 1, status: 'available' },
    ];
    const created: Pet[] = [];
    for (const pet of news) created.push(await store.createPet(pet));
    expect(created.map(({ id, ...rest }) => [typeof id, rest])).toEqual(
      news.map((pet) => ['number', { status: 'available', ...pet }]),
    );
    await expect(store.getPet(created[1]?.id ?? 0)).resolves.toEqual(created[1]);

    urls.length = 0;
    const all: Pet[] = [];
    for await (const pet of store.allPets({ limit: 2 })) all.push(pet);
    expect(all).toEqual(created);
    expect(urls).toHaveLength(3);
    expect(urls[0]).toBe(`${service.baseUrl}/pets?limit=2`);

    const sold: Pet[] = [];
    for await (const pet of store.allPets({ status: 'sold', limit: 1 })) sold.push(pet);
    expect(sold).toEqual(created.filter((pet) => pet.status === 'sold'));

    const page = await store.listPets({ limit: 4 });
    expect(page.pets).toEqual(created.slice(0, 4));
    expect(page.next).toMatch(/\/pets\?.*cursor=/);
    await expect(
      store.listPets({ limit: 4, cursor: new URL(page.next ?? '').searchParams.get('cursor') ?? '' }),
    ).resolves.toEqual({
      pets: created.slice(4),
    });
  });

  it("exposes the rate-limit state of the last answer, with both windows of the project's plan", async () => {
    const { client: store, last } = client();
    await store.listPets({ limit: 1 });
    const headers = last().headers;
    const state = store.rateLimit;
    // The same answer's headers, read as numbers; the minute is the window closest to exhaustion on Pro.
    expect(state).toEqual({
      limit: PLANS.pro.limits.perMinute,
      remaining: Number(headers.get('X-RateLimit-Remaining')),
      reset: Number(headers.get('X-RateLimit-Reset')),
      windows: [
        {
          name: 'minute',
          quota: PLANS.pro.limits.perMinute,
          windowSeconds: 60,
          remaining: state?.remaining,
          resetSeconds: expect.any(Number),
        },
        {
          name: 'day',
          quota: PLANS.pro.limits.perDay,
          windowSeconds: 86_400,
          remaining: expect.any(Number),
          resetSeconds: expect.any(Number),
        },
      ],
    });
    expect(state?.remaining).toBeLessThan(PLANS.pro.limits.perMinute);
    expect(state?.windows[1]?.remaining).toBeLessThan(PLANS.pro.limits.perDay);
    expect(state?.windows[0]?.resetSeconds).toBeLessThanOrEqual(60);
  });

  it("answers errors as typed ApiErrors with the service's Error body, not retried", async () => {
    const { client: store, urls } = client();
    const missing = await store.getPet(1).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect({ ...(missing as ApiError).body, retry: (missing as ApiError).retry }).toEqual({
      code: 'pet_not_found',
      message: expect.any(String),
      status: 404,
      retry: { attempts: 1, waitedMs: 0, reason: 'not-retryable' },
    });
    const invalid = await store.createPet({ name: 'x' } as NewPet).catch((error: unknown) => error);
    expect((invalid as ApiError).body).toEqual({
      code: 'invalid_body',
      message: 'Invalid request body: categoryId is required.',
      status: 400,
    });
    const unknownKey = await client('ask_nobody')
      .client.listPets()
      .catch((error: unknown) => error);
    expect((unknownKey as ApiError).code).toBe('invalid_api_key');
    expect(urls).toHaveLength(2);
  });

  it('a create whose connection is cut after the service committed it is retried with its key: one pet', async () => {
    const { apiKey: key } = await service.issueKey('pro');
    const proxy = await cuttingProxy(service.baseUrl);
    try {
      const { timing, sleeps } = fakeTiming([0.5]);
      const cut = createClient({ baseUrl: proxy.baseUrl, apiKey: key, timing });
      const pet = await cut.createPet({ name: 'Once', categoryId: 1 });
      expect(proxy.seen.map((r) => r.method)).toEqual(['POST', 'POST']);
      expect(proxy.seen[1]?.idempotencyKey).toBe(proxy.seen[0]?.idempotencyKey);
      expect(sleeps).toHaveLength(1);
      expect((await client(key).client.listPets()).pets).toEqual([pet]);
    } finally {
      await proxy.close();
    }
  });

  it('the same key with another body is refused with 422, not retried', async () => {
    const { client: store, urls } = client((await service.issueKey('pro')).apiKey);
    const first = await store.createPet({ name: 'First', categoryId: 1 }, { idempotencyKey: 'order-7' });
    await expect(
      store.createPet({ name: 'First', categoryId: 1 }, { idempotencyKey: 'order-7' }),
    ).resolves.toEqual(first);
    const error = await store
      .createPet({ name: 'Other', categoryId: 1 }, { idempotencyKey: 'order-7' })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ApiError);
    expect({
      status: (error as ApiError).status,
      code: (error as ApiError).code,
      retry: (error as ApiError).retry,
    }).toEqual({
      status: 422,
      code: 'idempotency_key_reused',
      retry: { attempts: 1, waitedMs: 0, reason: 'not-retryable' },
    });
    expect(urls).toHaveLength(3);
    expect((await store.listPets()).pets).toEqual([first]);
  });

  it('reads the OpenAPI document, without a key', async () => {
    const document = await createClient({ baseUrl: service.baseUrl }).getOpenApi();
    expect(document).toEqual(openapi);
  });
});
