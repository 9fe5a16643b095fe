import { PLANS } from '../../../lambda/core/plans';
import {
  type CounterStore,
  keySubject,
  projectIdentity,
  RateLimiter,
} from '../../../lambda/core/rate-limiter';
import { REFUSAL_FLUSH_MS, type UsageWriter } from '../../../lambda/core/usage-counting';
import { usageHistory } from '../../../lambda/core/usage-history';
import { createDocumentClient } from '../../../lambda/store/dynamodb-client';
import { UsageHistoryStore } from '../../../lambda/store/usage-history-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { fakeClock } from '../../support/fake-clock';

/**
 * Issue 29: the limiter counts a project's admitted calls per operation on the write that counts
 * them against its plan, moves a finished hour to its hour item with one extra write per
 * project-hour, and carries refusals on a later write; the history shows exactly what it admitted.
 */
const OPERATIONS = ['listPets', 'createPet', 'getPet', 'getOpenApi', 'catchAll'];
const FREE = PLANS.free.limits;
const HOUR_MS = 3_600_000;

let store: TestStore;
let counters: UsageHistoryStore;
const sent: string[] = [];
let serial = 0;
const nextProject = () => `usage-count-${++serial}`;

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
  counters = new UsageHistoryStore(recording, LOCAL_TABLE_NAMES.rateLimits);
});
afterAll(() => store.close());

/** A limiter (one instance) counting usage, on a clock the test moves. */
function instance(now: () => number, writer: UsageWriter = counters, store: CounterStore = counters) {
  return new RateLimiter(store, now, { operations: OPERATIONS, writer });
}

async function send(limiter: RateLimiter, project: string, operation: string, times: number) {
  const outcomes = [];
  for (let index = 0; index < times; index++) {
    outcomes.push(await limiter.admit(projectIdentity(project), FREE, keySubject('k1'), operation));
  }
  return outcomes;
}

const history = (project: string, nowMs: number) =>
  usageHistory(project, FREE, counters, nowMs, { operations: OPERATIONS });

test('a known mix across an hour boundary: each hour and the day show exactly the admitted calls', async () => {
  const clock = fakeClock(Date.UTC(2026, 10, 26, 12, 58, 30));
  try {
    const project = nextProject();
    const other = nextProject();
    const limiter = instance(clock.now);
    await send(limiter, project, 'listPets', 5);
    await send(limiter, project, 'getPet', 7);
    await send(instance(clock.now), other, 'getPet', 11);
    clock.set(Date.UTC(2026, 10, 26, 12, 59, 10));
    await send(limiter, project, 'createPet', 2);
    await send(limiter, project, 'catchAll', 1);

    clock.set(Date.UTC(2026, 10, 26, 13, 0, 5));
    sent.length = 0;
    await send(limiter, project, 'getPet', 1);
    // The hour's first write, and the finished hour to its hour item: one extra write.
    expect(sent).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    sent.length = 0;
    await send(limiter, project, 'getPet', 2);
    await send(limiter, project, 'createPet', 1);
    expect(sent).toEqual(['UpdateItemCommand', 'UpdateItemCommand', 'UpdateItemCommand']);

    sent.length = 0;
    const view = await history(project, clock.now());
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(view.hours.at(-2)).toEqual({
      start: '2026-11-26T12:00:00.000Z',
      admitted: { listPets: 5, getPet: 7, createPet: 2, catchAll: 1 },
      refused: {},
    });
    expect(view.hours.at(-1)).toEqual({
      start: '2026-11-26T13:00:00.000Z',
      admitted: { getPet: 3, createPet: 1 },
      refused: {},
    });
    expect(view.days.at(-1)?.admitted).toEqual({ listPets: 5, getPet: 10, createPet: 3, catchAll: 1 });
    // One project's history is never another's.
    expect([...view.hours, ...view.days].flatMap((bucket) => Object.values(bucket.admitted))).not.toContain(
      11,
    );
    expect((await history(other, clock.now())).days.at(-1)?.admitted).toEqual({ getPet: 11 });
  } finally {
    clock.restore();
  }
});

test('two instances writing the first call of an hour at once: one moves the hour, both are counted', async () => {
  const clock = fakeClock(Date.UTC(2026, 10, 26, 15, 59, 50));
  try {
    const project = nextProject();
    const [first, second] = [instance(clock.now), instance(clock.now)];
    await send(first, project, 'getPet', 3);
    await send(second, project, 'listPets', 2);
    clock.set(Date.UTC(2026, 10, 26, 16, 0, 1));
    const outcomes = await Promise.all([
      first.admit(projectIdentity(project), FREE, keySubject('k1'), 'getPet'),
      second.admit(projectIdentity(project), FREE, keySubject('k1'), 'listPets'),
    ]);
    expect(outcomes.map((outcome) => outcome.admitted)).toEqual([true, true]);
    const view = await history(project, clock.now());
    expect(view.hours.at(-2)?.admitted).toEqual({ getPet: 3, listPets: 2 });
    expect(view.hours.at(-1)?.admitted).toEqual({ getPet: 1, listPets: 1 });
    expect(view.days.at(-1)?.admitted).toEqual({ getPet: 4, listPets: 3 });
  } finally {
    clock.restore();
  }
});

test('refusals write nothing; the next counting write carries them', async () => {
  const clock = fakeClock(Date.UTC(2026, 10, 26, 9, 10, 0));
  try {
    const project = nextProject();
    const limiter = instance(clock.now);
    await send(limiter, project, 'getPet', FREE.perMinute);
    sent.length = 0;
    const refused = await send(limiter, project, 'listPets', 4);
    expect(refused.every((outcome) => !outcome.admitted)).toBe(true);
    // The first refusal's failed conditional write; from memory on, nothing.
    expect(sent).toEqual(['UpdateItemCommand']);
    expect((await history(project, clock.now())).hours.at(-1)?.refused).toEqual({});

    clock.advance(60_000);
    await send(limiter, project, 'getPet', 1);
    const view = await history(project, clock.now());
    expect(view.hours.at(-1)).toEqual({
      start: '2026-11-26T09:00:00.000Z',
      admitted: { getPet: FREE.perMinute + 1 },
      refused: { listPets: 4 },
    });
    expect(view.days.at(-1)?.refused).toEqual({ listPets: 4 });
  } finally {
    clock.restore();
  }
});

test('a project refused for the rest of its day has its refusals flushed a minute later, in their own hour', async () => {
  const clock = fakeClock(Date.UTC(2026, 10, 26, 20, 30, 0));
  try {
    const project = nextProject();
    const limiter = instance(clock.now);
    const day = { perMinute: 1_000, perDay: 5 };
    const call = (key: string) => limiter.admit(projectIdentity(project), day, keySubject(key), 'listPets');
    for (let index = 0; index < 5; index++) await call(`k${index}`);
    const first = Date.UTC(2026, 10, 26, 22, 0, 0);
    clock.set(first);
    sent.length = 0;
    // Each from its own key (no ban): refused from the instance's memory after the first.
    for (let index = 0; index < 6; index++) {
      expect((await call(`r${index}`)).admitted).toBe(false);
      clock.advance(4_000);
    }
    expect(sent).toEqual(['UpdateItemCommand']);
    // The refusal is remembered 30 s: then one failed write learns it again, and writes no count.
    clock.set(first + REFUSAL_FLUSH_MS);
    expect((await call('r6')).admitted).toBe(false);
    expect(sent).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    expect((await history(project, clock.now())).days.at(-1)?.refused).toEqual({});
    // The next refusal from memory, a minute after the first unwritten one: one flush.
    clock.advance(1_000);
    expect((await call('r7')).admitted).toBe(false);
    expect(sent).toEqual([
      'UpdateItemCommand',
      'UpdateItemCommand',
      'BatchGetItemCommand',
      'UpdateItemCommand',
    ]);
    const view = await history(project, clock.now());
    expect(view.hours.at(-1)).toEqual({
      start: '2026-11-26T22:00:00.000Z',
      admitted: {},
      refused: { listPets: 8 },
    });
    expect(view.hours.find((hour) => hour.start === '2026-11-26T20:00:00.000Z')?.admitted).toEqual({
      listPets: 5,
    });
    expect(view.days.at(-1)).toMatchObject({ admitted: { listPets: 5 }, refused: { listPets: 8 } });
  } finally {
    clock.restore();
  }
});

test('project counters and hour items are kept 35 days; a client counter one day', async () => {
  const start = Date.UTC(2026, 10, 27, 10, 59, 0);
  const clock = fakeClock(start);
  try {
    const project = nextProject();
    const limiter = instance(clock.now);
    await send(limiter, project, 'getPet', 1);
    clock.set(start + HOUR_MS);
    await send(limiter, project, 'getPet', 1);
    await limiter.admit(`ip:198.51.100.${serial}`, PLANS.free.limits);
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const item = async (counterId: string) =>
      (
        await store.documents.send(
          new GetCommand({ TableName: LOCAL_TABLE_NAMES.rateLimits, Key: { counterId } }),
        )
      ).Item;
    const dayEnd = Date.UTC(2026, 10, 28) / 1000;
    expect((await item(`project:${project}#2026-11-27`))?.expiresAt).toBe(dayEnd + 35 * 86_400);
    expect((await item(`project:${project}#2026-11-27T10`))?.expiresAt).toBe(dayEnd + 35 * 86_400);
    expect((await item(`ip:198.51.100.${serial}#2026-11-27`))?.expiresAt).toBe(dayEnd + 86_400);
  } finally {
    clock.restore();
  }
});
