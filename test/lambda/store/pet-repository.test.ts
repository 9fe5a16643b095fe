import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { setClock } from '../../../lambda/shared/clock';
import { createDocumentClient } from '../../../lambda/store/dynamodb-client';
import { PetRepository } from '../../../lambda/store/pet-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { usePetStore } from '../../support/pet-store';

const petStore = usePetStore();

describe('PetRepository', () => {
  it('stores a pet and reads it back; status defaults to available', async () => {
    const created = await petStore.pets.create('acme', { name: 'Rex', categoryId: 3 });
    expect(created).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
    expect(await petStore.pets.get('acme', created.id)).toEqual(created);
  });

  it('answers undefined for an unknown id', async () => {
    expect(await petStore.pets.get('acme', 1)).toBeUndefined();
  });

  it('gives 500 concurrent creates in one millisecond 500 distinct ids, all readable (collisions are retried, never overwritten)', async () => {
    const restore = setClock(() => Date.UTC(2026, 5, 1));
    // 500 connections opened at once to a store in this process: on a busy machine accepting
    // them all takes longer than the local client's 5 s connection timeout, which is about the
    // machine, not about ids. This client waits for its connection as long as the test may.
    const patient = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: petStore.store.store.endpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        requestHandler: { connectionTimeout: 100_000, requestTimeout: 100_000 },
      }),
    );
    const concurrent = new PetRepository(patient, LOCAL_TABLE_NAMES.pets);
    try {
      const created = await Promise.all(
        Array.from({ length: 500 }, (_, index) =>
          concurrent.create('acme', { name: `pet ${index}`, categoryId: 1 + index }),
        ),
      );
      const ids = new Set(created.map((pet) => pet.id));
      expect(ids.size).toBe(500);
      // Read back 100 at a time (BatchGetItem's limit): 5 requests, not 500.
      const stored = new Map<number, Record<string, unknown>>();
      for (let start = 0; start < created.length; start += 100) {
        let keys: Record<string, unknown>[] = created
          .slice(start, start + 100)
          .map((pet) => ({ id: pet.id }));
        while (keys.length > 0) {
          const { Responses, UnprocessedKeys } = await petStore.store.documents.send(
            new BatchGetCommand({ RequestItems: { [LOCAL_TABLE_NAMES.pets]: { Keys: keys } } }),
          );
          for (const item of Responses?.[LOCAL_TABLE_NAMES.pets] ?? []) stored.set(item.id as number, item);
          keys = UnprocessedKeys?.[LOCAL_TABLE_NAMES.pets]?.Keys ?? [];
        }
      }
      for (const pet of created) {
        expect(stored.get(pet.id)).toMatchObject({ name: pet.name, categoryId: pet.categoryId });
      }
    } finally {
      restore();
      patient.destroy();
    }
  }, 120_000);
});

describe('PetRepository.create when a write is retried after it landed', () => {
  it('succeeds on its own item instead of making a second pet', async () => {
    const retrying = createDocumentClient(petStore.store.store.endpoint);
    // As when a response is lost: the same PutItem reaches the store twice.
    retrying.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand') await next(args);
        return next(args);
      },
      { step: 'finalizeRequest' },
    );
    const repository = new PetRepository(retrying, LOCAL_TABLE_NAMES.pets);
    const before = (
      await petStore.store.documents.send(new ScanCommand({ TableName: LOCAL_TABLE_NAMES.pets }))
    ).Count;
    const pet = await repository.create('acme', { name: 'Once', categoryId: 5 });
    const after = (
      await petStore.store.documents.send(new ScanCommand({ TableName: LOCAL_TABLE_NAMES.pets }))
    ).Count;
    expect(after).toBe((before ?? 0) + 1);
    expect(await petStore.pets.get('acme', pet.id)).toEqual(pet);
    retrying.destroy();
  });
});

describe('PetRepository.list', () => {
  let listStore: TestStore;
  let repository: PetRepository;
  const scanned: number[] = [];

  beforeAll(async () => {
    listStore = await startTestStore();
    const counting = createDocumentClient(listStore.store.endpoint);
    counting.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        if (args.input && 'IndexName' in (args.input as object)) {
          scanned.push((result.output as { ScannedCount?: number }).ScannedCount ?? -1);
        }
        return result;
      },
      { step: 'initialize' },
    );
    repository = new PetRepository(counting, LOCAL_TABLE_NAMES.pets);
    const statuses = ['available', 'pending', 'sold'] as const;
    let clock = Date.UTC(2026, 0, 1);
    const restore = setClock(() => clock);
    for (let index = 0; index < 240; index++) {
      clock += 1;
      await repository.create('acme', { name: `pet ${index}`, categoryId: 1, status: statuses[index % 3] });
    }
    restore();
  });
  afterAll(() => listStore.close());

  it('returns pets in ascending id order, a page at a time, each exactly once', async () => {
    const seen: number[] = [];
    let afterId: number | undefined;
    for (;;) {
      const page = await repository.list('acme', { limit: 37, ...(afterId ? { afterId } : {}) });
      seen.push(...page.pets.map((pet) => pet.id));
      if (!page.hasMore) break;
      afterId = page.pets.at(-1)?.id;
    }
    expect(seen).toHaveLength(240);
    expect(new Set(seen).size).toBe(240);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('filters by status through the index', async () => {
    const page = await repository.list('acme', { limit: 100, status: 'pending' });
    expect(page.pets).toHaveLength(80);
    expect(page.pets.every((pet) => pet.status === 'pending')).toBe(true);
    expect(page.hasMore).toBe(false);
  });

  it('says there is more only when there is', async () => {
    expect((await repository.list('acme', { limit: 80, status: 'sold' })).hasMore).toBe(false);
    expect((await repository.list('acme', { limit: 79, status: 'sold' })).hasMore).toBe(true);
  });

  it("never lists another project's pets, and reads only its own partition", async () => {
    for (let index = 0; index < 30; index++)
      await repository.create('other', { name: `other ${index}`, categoryId: 2 });
    const mine = await repository.list('acme', { limit: 100, status: 'pending' });
    expect(mine.pets).toHaveLength(80);
    const theirs = await repository.list('other', { limit: 100 });
    expect(theirs.pets).toHaveLength(30);
    expect(theirs.pets.every((pet) => pet.name.startsWith('other'))).toBe(true);
    const [one] = theirs.pets;
    expect(await repository.get('acme', one?.id ?? 0)).toBeUndefined();
    expect(await repository.get('other', one?.id ?? 0)).toEqual(one);
  });

  it('filters the project index by status while the status index is being built (upgrade step 1)', async () => {
    const building = new PetRepository(listStore.documents, LOCAL_TABLE_NAMES.pets, { statusIndex: false });
    const page = await building.list('acme', { limit: 50, status: 'sold' });
    expect(page.pets).toHaveLength(50);
    expect(page.pets.every((pet) => pet.status === 'sold')).toBe(true);
    expect(page.hasMore).toBe(true);
    expect(await building.list('acme', { limit: 80, status: 'sold' })).toMatchObject({ hasMore: false });
  });

  it('reads limit + 1 items per page whatever the table size (a Query, never a Scan)', async () => {
    scanned.length = 0;
    await repository.list('acme', { limit: 20 });
    await repository.list('acme', { limit: 5, status: 'available' });
    expect(scanned).toEqual([21, 6]);
  });
});

describe('PetRepository for the upgrade to projects', () => {
  it('finds pets written before projects and gives each its project once', async () => {
    const before = await startTestStore();
    try {
      const repository = new PetRepository(before.documents, LOCAL_TABLE_NAMES.pets);
      // As the release before projects wrote them: no project, a `collection` attribute.
      for (const id of [11, 12]) {
        await before.documents.send(
          new PutCommand({
            TableName: LOCAL_TABLE_NAMES.pets,
            Item: {
              id,
              name: `old ${id}`,
              categoryId: 1,
              status: 'sold',
              collection: 'pets',
              createdAt: 'x',
              createToken: 't',
            },
          }),
        );
      }
      const current = await repository.create('acme', { name: 'new', categoryId: 1 });
      expect(await repository.listUnassigned()).toEqual([11, 12]);
      expect(await repository.assignProject(11, 'legacy')).toBe(true);
      expect(await repository.assignProject(11, 'legacy')).toBe(false);
      expect(await repository.assignProject(current.id, 'legacy')).toBe(false);
      expect(await repository.assignProject(999, 'legacy')).toBe(false);
      expect(await repository.listUnassigned()).toEqual([12]);
      expect(
        (await repository.list('legacy', { limit: 10, status: 'sold' })).pets.map((pet) => pet.id),
      ).toEqual([11]);
    } finally {
      await before.close();
    }
  });
});
