import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  type CompletedRecord,
  IDEMPOTENCY_KEY_TTL_SECONDS,
  type InFlightRecord,
} from '../../../lambda/core/idempotency';
import { StoreUnavailableError } from '../../../lambda/core/errors';
import { IdempotencyRepository } from '../../../lambda/store/idempotency-repository';
import { PetRepository } from '../../../lambda/store/pet-repository';
import { IDEMPOTENCY_TABLE } from '../../../lambda/store/table-schema';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

const TABLE = 'test-idempotency-keys';
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const NOW_SECONDS = NOW / 1000;

let store: TestStore;
let records: IdempotencyRepository;
let pets: PetRepository;
let keyNumber = 0;
/** A key no other test uses: every test starts from an absent record. */
const nextKey = () => `key-${++keyNumber}`;

const inFlight = (overrides: Partial<InFlightRecord> = {}): InFlightRecord => ({
  state: 'in_flight',
  fingerprint: 'f'.repeat(64),
  petId: 1001,
  createToken: 'token-a',
  reservedAtMs: NOW,
  leaseOwner: 'attempt-a',
  leaseUntilMs: NOW + 10_000,
  expiresAtSeconds: NOW_SECONDS + 7 * 86_400,
  ...overrides,
});

const completed = (overrides: Partial<CompletedRecord> = {}): CompletedRecord => ({
  ...inFlight(),
  state: 'completed',
  pet: { id: 1001, name: 'Rex', categoryId: 3, status: 'available' },
  completedAtMs: NOW + 500,
  expiresAtSeconds: NOW_SECONDS + IDEMPOTENCY_KEY_TTL_SECONDS,
  ...overrides,
});

beforeAll(async () => {
  store = await startTestStore();
  await store.createTable(IDEMPOTENCY_TABLE, TABLE);
  records = new IdempotencyRepository(store.documents, TABLE);
  pets = new PetRepository(store.documents, LOCAL_TABLE_NAMES.pets);
});
afterAll(() => store.close());

describe('IdempotencyRepository.reserve', () => {
  it('writes a record for a new key, scoped to its project, and reads it back', async () => {
    const key = nextKey();
    expect(await records.reserve('acme', key, inFlight(), NOW)).toEqual({ reserved: true });
    expect(await records.read('acme', key)).toEqual(inFlight());
    expect(await records.read('other', key)).toBeUndefined();
    const { Item } = await store.documents.send(
      new GetCommand({ TableName: TABLE, Key: { scopedKey: `acme#${key}` } }),
    );
    expect(Item).toMatchObject({ state: 'in_flight', expiresAt: NOW_SECONDS + 7 * 86_400 });
  });

  it('refuses a key with a live record, answering that record without a read', async () => {
    const key = nextKey();
    await records.reserve('acme', key, inFlight(), NOW);
    const second = inFlight({ leaseOwner: 'attempt-b', createToken: 'token-b' });
    expect(await records.reserve('acme', key, second, NOW + 60_000)).toEqual({
      reserved: false,
      current: inFlight(),
    });
  });

  it('replaces a record whose expiry has passed (before DynamoDB TTL deletes it), and not a second earlier', async () => {
    const key = nextKey();
    const done = completed();
    await records.reserve('acme', key, inFlight(), NOW);
    expect(await records.complete('acme', key, done)).toBe(true);
    const expiresAtMs = done.expiresAtSeconds * 1000;
    const fresh = inFlight({ petId: 2002, createToken: 'token-c', leaseOwner: 'attempt-c' });
    expect(await records.reserve('acme', key, fresh, expiresAtMs - 1)).toEqual({
      reserved: false,
      current: done,
    });
    expect(await records.reserve('acme', key, fresh, expiresAtMs)).toEqual({ reserved: true });
    expect(await records.read('acme', key)).toEqual(fresh);
  });
});

describe('IdempotencyRepository.takeOver', () => {
  it('moves the lease only from the lease as it was read: of two takers, one wins', async () => {
    const key = nextKey();
    const record = inFlight();
    await records.reserve('acme', key, record, NOW);
    const later = NOW + 20_000;
    const b = { leaseOwner: 'attempt-b', leaseUntilMs: later + 10_000 };
    const c = { leaseOwner: 'attempt-c', leaseUntilMs: later + 10_000 };
    expect(await records.takeOver('acme', key, record, b, later / 1000 + 86_400)).toBe(true);
    expect(await records.takeOver('acme', key, record, c, later / 1000 + 86_400)).toBe(false);
    expect(await records.read('acme', key)).toEqual({
      ...record,
      ...b,
      expiresAtSeconds: later / 1000 + 86_400,
    });
  });

  it('never takes over a completed record', async () => {
    const key = nextKey();
    await records.reserve('acme', key, inFlight(), NOW);
    await records.complete('acme', key, completed());
    const taker = { leaseOwner: 'attempt-b', leaseUntilMs: NOW + 30_000 };
    expect(await records.takeOver('acme', key, completed(), taker, NOW_SECONDS + 86_400)).toBe(false);
    expect(await records.read('acme', key)).toEqual(completed());
  });
});

describe('IdempotencyRepository.reassign', () => {
  it("changes the reservation only for the lease's owner and from the current reservation", async () => {
    const key = nextKey();
    const record = inFlight();
    await records.reserve('acme', key, record, NOW);
    const moved = { petId: 3003, createToken: 'token-m', reservedAtMs: NOW + 1 };
    expect(await records.reassign('acme', key, 'attempt-other', record, moved)).toBe(false);
    expect(await records.reassign('acme', key, record.leaseOwner, moved, moved)).toBe(false);
    expect(await records.reassign('acme', key, record.leaseOwner, record, moved)).toBe(true);
    expect(await records.read('acme', key)).toEqual({ ...record, ...moved });
  });
});

describe('IdempotencyRepository.complete', () => {
  it('completes the in-flight record of its reservation, whoever holds the lease', async () => {
    const key = nextKey();
    await records.reserve('acme', key, inFlight({ leaseOwner: 'attempt-b' }), NOW);
    expect(await records.complete('acme', key, completed())).toBe(true);
    expect(await records.read('acme', key)).toEqual(completed());
  });

  it('is repeatable by the attempt that completed it (a retried call), by no other', async () => {
    const key = nextKey();
    await records.reserve('acme', key, inFlight(), NOW);
    expect(await records.complete('acme', key, completed())).toBe(true);
    expect(await records.complete('acme', key, completed())).toBe(true);
    expect(await records.complete('acme', key, completed({ leaseOwner: 'attempt-b' }))).toBe(false);
  });

  it('refuses another reservation, or a key without a record', async () => {
    const key = nextKey();
    await records.reserve('acme', key, inFlight(), NOW);
    expect(await records.complete('acme', key, completed({ createToken: 'token-x' }))).toBe(false);
    expect(await records.complete('acme', key, completed({ petId: 9999 }))).toBe(false);
    expect(await records.complete('acme', nextKey(), completed())).toBe(false);
    expect(await records.read('acme', key)).toEqual(inFlight());
  });
});

describe('IdempotencyRepository when the store fails', () => {
  it('throws StoreUnavailableError from every call', async () => {
    const missing = new IdempotencyRepository(store.documents, 'no-such-table');
    const lease = { leaseOwner: 'a', leaseUntilMs: NOW };
    const calls = [
      () => missing.read('acme', 'k'),
      () => missing.reserve('acme', 'k', inFlight(), NOW),
      () => missing.takeOver('acme', 'k', lease, lease, NOW_SECONDS),
      () => missing.reassign('acme', 'k', 'a', inFlight(), inFlight()),
      () => missing.complete('acme', 'k', completed()),
    ];
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('PetRepository.writeReserved', () => {
  const pet = { id: 424242, name: 'Reserved', categoryId: 7, status: 'pending' } as const;

  it('writes the pet once however often its token writes it, and refuses another token on its id', async () => {
    expect(await pets.writeReserved('acme', pet, 'token-1', NOW)).toBe(true);
    expect(await pets.writeReserved('acme', pet, 'token-1', NOW)).toBe(true);
    expect(await pets.writeReserved('acme', { ...pet, name: 'Intruder' }, 'token-2', NOW + 5)).toBe(false);
    const { Items } = await store.documents.send(
      new ScanCommand({
        TableName: LOCAL_TABLE_NAMES.pets,
        FilterExpression: 'id = :id',
        ExpressionAttributeValues: { ':id': pet.id },
      }),
    );
    expect(Items).toEqual([
      expect.objectContaining({
        ...pet,
        project: 'acme',
        createToken: 'token-1',
        createdAt: new Date(NOW).toISOString(),
      }),
    ]);
    expect(await pets.get('acme', pet.id)).toEqual(pet);
  });
});
