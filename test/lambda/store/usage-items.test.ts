import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { PLANS } from '../../../lambda/core/plans';
import { usageHistory } from '../../../lambda/core/usage-history';
import { createDocumentClient } from '../../../lambda/store/dynamodb-client';
import { UsageHistoryStore } from '../../../lambda/store/usage-history-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * A project's usage history is read from its day counters and hour items with one request to the
 * store, and holds that project's items only.
 */
const NOW = Date.UTC(2026, 10, 26, 13, 20, 0);
const HOUR = Math.floor(NOW / 3_600_000);
const TABLE = LOCAL_TABLE_NAMES.rateLimits;
const OPERATIONS = ['listPets', 'createPet', 'getPet', 'getOpenApi', 'catchAll'];

let store: TestStore;
let counters: UsageHistoryStore;
const sent: string[] = [];

beforeAll(async () => {
  store = await startTestStore();
  const recording = createDocumentClient(store.store.endpoint);
  recording.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize' },
  );
  counters = new UsageHistoryStore(recording, TABLE);
});
afterAll(() => store.close());
beforeEach(() => {
  sent.length = 0;
});

const put = (Item: Record<string, unknown>) =>
  store.documents.send(new PutCommand({ TableName: TABLE, Item }));

test('reads 30 days and 24 hours in one BatchGetItem, each count in its hour and day', async () => {
  await put({
    counterId: 'project:alpha#2026-11-26',
    hour: HOUR,
    h_getPet: 4,
    hr_getPet: 2,
    d_getPet: 9,
    dr_getPet: 2,
    d_listPets: 1,
  });
  await put({ counterId: 'project:alpha#2026-11-26T11', hour: HOUR - 2, h_getPet: 5, h_listPets: 1 });
  // Yesterday's last counted hour stays on yesterday's counter.
  await put({ counterId: 'project:alpha#2026-11-25', hour: HOUR - 14, h_createPet: 3, d_createPet: 7 });
  await put({ counterId: 'project:alpha#2026-10-26', d_getPet: 99 });
  await put({ counterId: 'project:beta#2026-11-26', hour: HOUR, h_getPet: 50, d_getPet: 50 });

  const history = await usageHistory('alpha', PLANS.pro.limits, counters, NOW, { operations: OPERATIONS });

  expect(sent).toEqual(['BatchGetItemCommand']);
  expect(history.readAt).toBe('2026-11-26T13:20:00.000Z');
  expect(history.limits).toEqual(PLANS.pro.limits);
  expect(history.operations).toEqual(OPERATIONS);
  expect(history.refusedAreLowerBounds).toBe(true);
  expect(history.hours).toHaveLength(24);
  expect(history.hours[0]?.start).toBe('2026-11-25T14:00:00.000Z');
  expect(history.hours[23]).toEqual({
    start: '2026-11-26T13:00:00.000Z',
    admitted: { getPet: 4 },
    refused: { getPet: 2 },
  });
  expect(history.hours[21]).toEqual({
    start: '2026-11-26T11:00:00.000Z',
    admitted: { getPet: 5, listPets: 1 },
    refused: {},
  });
  expect(history.hours[9]).toEqual({
    start: '2026-11-25T23:00:00.000Z',
    admitted: { createPet: 3 },
    refused: {},
  });
  expect(history.hours.filter((hour) => Object.keys(hour.admitted).length > 0)).toHaveLength(3);
  expect(history.days).toHaveLength(30);
  expect(history.days[0]?.start).toBe('2026-10-28T00:00:00.000Z');
  expect(history.days[29]).toEqual({
    start: '2026-11-26T00:00:00.000Z',
    admitted: { getPet: 9, listPets: 1 },
    refused: { getPet: 2 },
  });
  expect(history.days[28]?.admitted).toEqual({ createPet: 7 });
  // A month ago is outside the 30 days; beta's counts are beta's.
  expect(history.days.flatMap((day) => Object.values(day.admitted))).not.toContain(99);
  expect(JSON.stringify(history)).not.toContain('50');
});

test('a project never called has every hour and day, all empty', async () => {
  const history = await usageHistory('never', PLANS.free.limits, counters, NOW, { operations: OPERATIONS });
  expect(sent).toEqual(['BatchGetItemCommand']);
  expect(history.hours.every((hour) => Object.keys(hour.admitted).length === 0)).toBe(true);
  expect(history.days.every((day) => Object.keys(day.refused).length === 0)).toBe(true);
});
