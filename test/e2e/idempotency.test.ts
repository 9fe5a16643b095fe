import {
  IDEMPOTENCY_LEASE_MS,
  IN_FLIGHT_TTL_SECONDS,
  requestFingerprint,
} from '../../lambda/core/idempotency';
import type { Pet } from '../../lambda/core/pet';
import { ID_EPOCH_MS } from '../../lambda/core/pet-id';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { IdempotencyRepository } from '../../lambda/store/idempotency-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { clockInADayOfItsOwn } from '../support/fake-clock';
import { rawRequest } from '../support/raw-http';
import { expectError, startTestApi, type TestApi } from '../support/test-api';

/**
 * Idempotency-Key on POST /pets, end to end over HTTP against local mode: every response is
 * checked against the OpenAPI document by the test client. The exactly-once rules under
 * failures are proven against the store in test/lambda/store/idempotency-create.test.ts.
 */

let t: TestApi;
let keys: IdempotencyRepository;
// Each test in a UTC day of its own: no rate-limit window is shared.
const { clock } = clockInADayOfItsOwn(Date.UTC(2029, 0, 1));

beforeAll(async () => {
  t = await startTestApi();
  keys = new IdempotencyRepository(
    createDocumentClient(t.api.dynamodbEndpoint),
    LOCAL_TABLE_NAMES.idempotency,
  );
});
afterAll(() => t.close());

const create = (apiKey: string, body: unknown, idempotencyKey?: string) =>
  t.request('/pets', {
    method: 'POST',
    apiKey,
    headers: {
      'Content-Type': 'application/json',
      ...(idempotencyKey !== undefined ? { 'Idempotency-Key': idempotencyKey } : {}),
    },
    body: JSON.stringify(body),
  });

async function petsOf(apiKey: string): Promise<Pet[]> {
  const response = await t.request('/pets?limit=100', { apiKey });
  expect(response.status).toBe(200);
  return (await response.json()) as Pet[];
}

describe('Idempotency-Key on POST /pets', () => {
  it('answers a retry with the same key and body with the first 201, creating nothing', async () => {
    const { apiKey } = await t.issueKey('pro');
    const body = { name: 'Rex', categoryId: 1 };
    const first = await create(apiKey, body, '"order-1"');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const pet = (await first.json()) as Pet;

    clock().advance(60_000);
    // The same body with its fields in another order is the same request.
    const retry = await create(apiKey, { categoryId: 1, name: 'Rex' }, '"order-1"');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(await retry.json()).toEqual(pet);
    expect(await petsOf(apiKey)).toEqual([pet]);
  });

  it('counts a replay against the rate limit like any request, with fresh headers', async () => {
    const { apiKey } = await t.issueKey('free');
    const first = await create(apiKey, { name: 'Tom', categoryId: 2 }, 'bare-token-1');
    const retry = await create(apiKey, { name: 'Tom', categoryId: 2 }, 'bare-token-1');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));
    expect(remaining(retry)).toBe(remaining(first) - 1);
  });

  it('refuses the same key with a different body with 422, and keeps the first pet', async () => {
    const { apiKey } = await t.issueKey('pro');
    const first = await create(apiKey, { name: 'Kitty', categoryId: 1 }, '"k-2"');
    const other = await create(apiKey, { name: 'Kitty', categoryId: 2 }, '"k-2"');
    const error = await expectError(other, 422, 'idempotency_key_reused');
    expect(error.message).toContain('different request body');
    expect(await petsOf(apiKey)).toEqual([await first.json()]);
  });

  it('keeps keys per project: the same key in another project creates that project its own pet', async () => {
    const a = await t.issueKey('pro');
    const b = await t.issueKey('pro');
    const body = { name: 'Twin', categoryId: 1 };
    const petOfA = (await (await create(a.apiKey, body, '"shared"')).json()) as Pet;
    const inB = await create(b.apiKey, body, '"shared"');
    expect(inB.headers.get('idempotent-replayed')).toBeNull();
    const petOfB = (await inB.json()) as Pet;
    expect(petOfB.id).not.toBe(petOfA.id);
    expect(await petsOf(a.apiKey)).toEqual([petOfA]);
    expect(await petsOf(b.apiKey)).toEqual([petOfB]);
  });

  it.each([
    ['an empty quoted string', '""', 'empty'],
    ['an unterminated quoted string', '"abc', 'quote'],
    ['a key over 255 characters', `"${'k'.repeat(256)}"`, '255'],
    ['a parameter after the string', '"abc";v=1', 'closing quote'],
    ['a bare value with a space', 'two words', ''],
  ])('refuses %s with 400 and creates nothing', async (_case, value, mention) => {
    const { apiKey } = await t.issueKey('pro');
    const error = await expectError(
      await create(apiKey, { name: 'Nope', categoryId: 1 }, value),
      400,
      'invalid_idempotency_key',
    );
    expect(error.message.toLowerCase()).toContain(mention);
    expect(await petsOf(apiKey)).toEqual([]);
  });

  it('refuses two Idempotency-Key headers with 400', async () => {
    const { apiKey } = await t.issueKey('pro');
    const origin = new URL(t.baseUrl);
    const response = await rawRequest(origin.origin, {
      method: 'POST',
      path: '/v1/pets',
      headers: [
        ['Host', origin.host],
        ['Authorization', `Bearer ${apiKey}`],
        ['Content-Type', 'application/json'],
        ['Idempotency-Key', '"a"'],
        ['Idempotency-Key', '"b"'],
      ],
      body: JSON.stringify({ name: 'Dup', categoryId: 1 }),
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'invalid_idempotency_key', status: 400 });
    expect(await petsOf(apiKey)).toEqual([]);
  });

  it('remembers only 201s: a key first sent with an invalid body still creates once the body is valid', async () => {
    const { apiKey } = await t.issueKey('pro');
    await expectError(await create(apiKey, { name: '' }, '"k-3"'), 400, 'invalid_body');
    const valid = await create(apiKey, { name: 'Late', categoryId: 1 }, '"k-3"');
    expect(valid.status).toBe(201);
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 409 with Retry-After while another request holds the key, then creates once it gives up', async () => {
    const { apiKey, record } = await t.issueKey('pro');
    const body = { name: 'Busy', categoryId: 1 };
    const nowMs = clock().now();
    // Another request holds the key: it reserved it 3 s ago and has not finished.
    const reservedAtMs = nowMs - 3_000;
    const outcome = await keys.reserve(
      record.project,
      'busy-key',
      {
        state: 'in_flight',
        petId: (reservedAtMs - ID_EPOCH_MS) * 4096 + 7,
        createToken: 'token-of-the-other-request',
        reservedAtMs,
        leaseOwner: 'the-other-request',
        leaseUntilMs: reservedAtMs + IDEMPOTENCY_LEASE_MS,
        fingerprint: requestFingerprint(body),
        expiresAtSeconds: Math.ceil(nowMs / 1000) + IN_FLIGHT_TTL_SECONDS,
      },
      nowMs,
    );
    expect(outcome.reserved).toBe(true);

    const busy = await create(apiKey, body, 'busy-key');
    await expectError(busy, 409, 'idempotency_key_in_use');
    expect(busy.headers.get('retry-after')).toBe(String(IDEMPOTENCY_LEASE_MS / 1000 - 3));
    expect(await petsOf(apiKey)).toEqual([]);

    // Its lease passes (it died): the retry takes over and creates the reserved pet, once.
    clock().advance(IDEMPOTENCY_LEASE_MS);
    const retry = await create(apiKey, body, 'busy-key');
    expect(retry.status).toBe(201);
    const pet = (await retry.json()) as Pet;
    expect(pet.id).toBe((reservedAtMs - ID_EPOCH_MS) * 4096 + 7);
    const again = await create(apiKey, body, 'busy-key');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await petsOf(apiKey)).toEqual([pet]);
  });

  it('forgets a key 24 hours after its create: the same key then creates a new pet', async () => {
    const { apiKey } = await t.issueKey('pro');
    const body = { name: 'Daily', categoryId: 1 };
    const first = (await (await create(apiKey, body, '"daily"')).json()) as Pet;
    clock().advance(24 * 3_600_000 + 1_000);
    const later = await create(apiKey, body, '"daily"');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(((await later.json()) as Pet).id).not.toBe(first.id);
  });
});
