import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { PLANS } from '../../../lambda/core/plans';
import { keySubject, projectIdentity, RateLimiter } from '../../../lambda/core/rate-limiter';
import {
  dailyUsageTopJob,
  readUsageTop,
  TOP_KEPT,
  topExpiresAtSeconds,
  writeDailyUsageTop,
} from '../../../lambda/core/usage-top';
import { createDocumentClient } from '../../../lambda/store/dynamodb-client';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { scanProjectNames, topItemId, UsageTopStore } from '../../../lambda/store/usage-top-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The busiest projects of a day (issue 29): the daily job reads every project's day counter by
 * key, 100 to a BatchGetItem, never scanning the counters, and writes one `top` item; the tool
 * reads that item, or ranks now for today and a day without one.
 */
const TABLE = LOCAL_TABLE_NAMES.rateLimits;
const DAY = '2026-11-25';
const NEXT_MORNING = Date.UTC(2026, 10, 26, 0, 15, 0);

let t: TestStore;
/** Each store command sent, with the table it names. */
const sent: { command: string; table: string }[] = [];
let store: UsageTopStore;
let projects: string[] = [];

const put = (Item: Record<string, unknown>) => t.documents.send(new PutCommand({ TableName: TABLE, Item }));

beforeAll(async () => {
  t = await startTestStore();
  const recording = createDocumentClient(t.store.endpoint);
  recording.middlewareStack.add(
    (next, context) => (args) => {
      const input = args.input as { TableName?: string; RequestItems?: Record<string, unknown> };
      sent.push({
        command: context.commandName ?? '?',
        table: input.TableName ?? Object.keys(input.RequestItems ?? {}).join(','),
      });
      return next(args);
    },
    { step: 'initialize' },
  );
  store = new UsageTopStore(recording, TABLE, () => Promise.resolve(projects));
});
afterAll(() => t.close());
beforeEach(() => {
  sent.length = 0;
});

test('ranks every project of the day by admitted calls and by refusals, reading the day counters by key', async () => {
  projects = ['alpha', 'beta', 'gamma', 'delta', 'quiet'];
  await put({ counterId: `project:alpha#${DAY}`, d_listPets: 40, d_getPet: 2, dr_listPets: 1 });
  await put({ counterId: `project:beta#${DAY}`, d_createPet: 42, dr_createPet: 9, dr_getPet: 3 });
  // gamma and delta tie on admitted calls: more refusals first.
  await put({ counterId: `project:gamma#${DAY}`, d_getPet: 5 });
  await put({ counterId: `project:delta#${DAY}`, d_getPet: 5, dr_getPet: 1 });
  // A client's counter of the day, and alpha's of another day, are none of it.
  await put({ counterId: `ip:198.51.100.7#${DAY}`, dayCount: 999, d_listPets: 999 });
  await put({ counterId: 'project:alpha#2026-11-24', d_listPets: 500 });

  const top = await writeDailyUsageTop(store, NEXT_MORNING);

  expect(sent).toEqual([
    { command: 'BatchGetItemCommand', table: TABLE },
    { command: 'PutItemCommand', table: TABLE },
  ]);
  expect(top).toEqual({
    day: DAY,
    computedAt: '2026-11-26T00:15:00.000Z',
    projectsRead: 5,
    total: { admitted: 94, refused: 14 },
    byRequests: [
      { project: 'beta', admitted: 42, refused: 12 },
      { project: 'alpha', admitted: 42, refused: 1 },
      { project: 'delta', admitted: 5, refused: 1 },
      { project: 'gamma', admitted: 5, refused: 0 },
    ],
    byRefusals: [
      { project: 'beta', admitted: 42, refused: 12 },
      { project: 'alpha', admitted: 42, refused: 1 },
      { project: 'delta', admitted: 5, refused: 1 },
    ],
  });
  const { Item } = await t.documents.send(
    new GetCommand({ TableName: TABLE, Key: { counterId: `top#${DAY}` } }),
  );
  // Kept as long as the day counters it was made from: 35 days after its day ends.
  expect(Item?.expiresAt).toBe(Date.UTC(2026, 11, 31) / 1000);
  expect(Item?.expiresAt).toBe(topExpiresAtSeconds(DAY));
  expect(topItemId(DAY)).toBe(Item?.counterId);
});

test('counts what the limiter counted: its day counters hold the figures the ranking reads', async () => {
  const day = '2026-11-20';
  const counters = new RateLimitStore(t.documents, TABLE);
  let nowMs = Date.UTC(2026, 10, 20, 9, 0, 0);
  const limiter = new RateLimiter(counters, () => nowMs, {
    operations: ['listPets', 'getPet'],
    writer: counters,
  });
  const limits = { perMinute: 3, perDay: PLANS.free.limits.perDay };
  projects = ['counted'];
  for (let call = 0; call < 5; call++) {
    await limiter.admit(projectIdentity('counted'), limits, keySubject(`k${call}`), 'listPets');
  }
  // The refusals reach the store with the next counted call (a minute later).
  nowMs += 60_000;
  await limiter.admit(projectIdentity('counted'), limits, keySubject('k'), 'getPet');

  const top = await writeDailyUsageTop(store, Date.UTC(2026, 10, 21, 0, 15, 0));

  expect(top.day).toBe(day);
  expect(top.byRequests).toEqual([{ project: 'counted', admitted: 4, refused: 2 }]);
});

test('reads 150 projects with two BatchGetItems, and keeps the 100 busiest of each list', async () => {
  const day = '2026-11-10';
  projects = Array.from({ length: 150 }, (_, index) => `p-${String(index).padStart(3, '0')}`);
  for (const [index, project] of projects.entries()) {
    await put({ counterId: `project:${project}#${day}`, d_getPet: index + 1, dr_getPet: 150 - index });
  }
  const top = await writeDailyUsageTop(store, Date.UTC(2026, 10, 11, 3, 0, 0));
  expect(sent.map((each) => each.command)).toEqual([
    'BatchGetItemCommand',
    'BatchGetItemCommand',
    'PutItemCommand',
  ]);
  expect(top.projectsRead).toBe(150);
  expect(top.byRequests).toHaveLength(TOP_KEPT);
  expect(top.byRequests[0]).toEqual({ project: 'p-149', admitted: 150, refused: 1 });
  expect(top.byRefusals[0]).toEqual({ project: 'p-000', admitted: 1, refused: 150 });
  expect(top.byRefusals.at(-1)?.project).toBe('p-099');
});

test("the tool's reading: the top item with its age; today, or a day the job missed, ranked now", async () => {
  projects = ['alpha', 'beta', 'gamma', 'delta', 'quiet'];
  const later = NEXT_MORNING + 7 * 3_600_000 + 5 * 60_000;
  const stored = await readUsageTop(store, DAY, later);
  expect(stored).toMatchObject({ source: 'top-item', ageSeconds: 7 * 3600 + 5 * 60 });
  expect(stored.top.byRequests[0]).toEqual({ project: 'beta', admitted: 42, refused: 12 });
  expect(sent.map((each) => each.command)).toEqual(['GetItemCommand']);

  sent.length = 0;
  await put({ counterId: 'project:alpha#2026-11-26', d_getPet: 3 });
  const today = await readUsageTop(store, '2026-11-26', later);
  expect(today).toMatchObject({
    source: 'computed',
    ageSeconds: 0,
    top: { computedAt: new Date(later).toISOString() },
  });
  expect(today.top.byRequests).toEqual([{ project: 'alpha', admitted: 3, refused: 0 }]);
  // Today is never read from an item (none is written before the day ends), nor written.
  expect(sent.map((each) => each.command)).toEqual(['BatchGetItemCommand']);

  sent.length = 0;
  const missed = await readUsageTop(store, '2026-11-24', later);
  expect(missed.source).toBe('computed');
  expect(missed.top.byRequests).toEqual([{ project: 'alpha', admitted: 500, refused: 0 }]);
  expect(sent.map((each) => each.command)).toEqual(['GetItemCommand', 'BatchGetItemCommand']);
});

test("the project list is the projects table's, names only", async () => {
  for (const name of ['zeta', 'eta']) {
    await t.documents.send(
      new PutCommand({
        TableName: LOCAL_TABLE_NAMES.projects,
        Item: { name, plan: 'free', consoleTokenHash: 'x' },
      }),
    );
  }
  expect(await scanProjectNames(t.documents, LOCAL_TABLE_NAMES.projects)).toEqual(['eta', 'zeta']);
});

test("the scheduled job's entry ranks the day just ended at its clock and says so in one JSON line", async () => {
  projects = ['alpha', 'beta', 'gamma', 'delta', 'quiet'];
  const lines: string[] = [];
  const job = dailyUsageTopJob(
    store,
    () => NEXT_MORNING + 60_000,
    (line) => lines.push(line),
  );
  expect(await job()).toEqual({ day: DAY, projectsRead: 5, total: { admitted: 94, refused: 14 } });
  expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
    {
      level: 'INFO',
      message: 'usage top written',
      day: DAY,
      projectsRead: 5,
      total: { admitted: 94, refused: 14 },
    },
  ]);
  expect((await readUsageTop(store, DAY, NEXT_MORNING + 120_000)).top.computedAt).toBe(
    '2026-11-26T00:16:00.000Z',
  );
});
