import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { PETS_TABLE, RATE_LIMITS_TABLE } from '../../../lambda/store/table-schema';
import { sweepExpiredItems } from '../../../local/expired-item-sweeper';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

describe('expired item sweeper (local stand-in for DynamoDB TTL)', () => {
  it('deletes the rate-limit counters whose expiresAt has passed and keeps the rest', async () => {
    const table = LOCAL_TABLE_NAMES.rateLimits;
    const nowMs = Date.UTC(2026, 10, 22, 12);
    const put = (counterId: string, expiresAt: number) =>
      store.documents.send(new PutCommand({ TableName: table, Item: { counterId, dayCount: 1, expiresAt } }));
    await put('key:a#2026-11-20', nowMs / 1000 - 1);
    await put('key:b#2026-11-22', nowMs / 1000 + 3600);
    expect(await sweepExpiredItems(store.documents, RATE_LIMITS_TABLE, table, nowMs)).toBe(1);
    const read = (counterId: string) =>
      store.documents.send(new GetCommand({ TableName: table, Key: { counterId } })).then((r) => r.Item);
    expect(await read('key:a#2026-11-20')).toBeUndefined();
    expect(await read('key:b#2026-11-22')).toBeDefined();
  });

  it('leaves tables without a TTL attribute alone', async () => {
    expect(await sweepExpiredItems(store.documents, PETS_TABLE, LOCAL_TABLE_NAMES.pets, Date.now())).toBe(0);
  });
});
