import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageTopPorts } from '../../lambda/core/usage-top';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { scanProjectNames, UsageTopStore } from '../../lambda/store/usage-top-store';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { LOCAL_USAGE_TOP_EVERY_MS, type RepeatTimer, startLocalUsageTop } from '../../local/usage-top-job';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { fakeClock } from '../support/fake-clock';

/**
 * Local mode's daily ranking (issue 29): written at start, then every hour on a timer the test
 * fires by hand (no waiting for time), a failure logged and never fatal, a tick during a run skipped.
 */
const TABLE = LOCAL_TABLE_NAMES.rateLimits;

/** A timer the test fires: each tick runs the job and resolves when it is done. */
function handTimer() {
  const runs: (() => Promise<void>)[] = [];
  const periods: number[] = [];
  let stopped = false;
  const timer: RepeatTimer = {
    every(everyMs, run) {
      periods.push(everyMs);
      runs.push(run);
      return () => {
        stopped = true;
      };
    },
  };
  return {
    timer,
    periods,
    tick: () => Promise.all(runs.map((run) => run())),
    stopped: () => stopped,
  };
}

let t: TestStore;
let store: UsageTopStore;
beforeAll(async () => {
  t = await startTestStore();
  store = new UsageTopStore(t.documents, TABLE, () =>
    scanProjectNames(t.documents, LOCAL_TABLE_NAMES.projects),
  );
  await t.documents.send(
    new PutCommand({ TableName: LOCAL_TABLE_NAMES.projects, Item: { name: 'hourly', plan: 'free' } }),
  );
});
afterAll(() => t.close());

const topOf = async (day: string) =>
  (await t.documents.send(new GetCommand({ TableName: TABLE, Key: { counterId: `top#${day}` } }))).Item;

test("writes yesterday's top item at start, and again on each hourly tick, the next day's once the day has turned", async () => {
  await t.documents.send(
    new PutCommand({ TableName: TABLE, Item: { counterId: 'project:hourly#2030-03-01', d_getPet: 3 } }),
  );
  let nowMs = Date.UTC(2030, 2, 2, 22, 30, 0);
  const hand = handTimer();
  const job = startLocalUsageTop({ ports: store, clock: () => nowMs, timer: hand.timer });
  await job.started;
  expect(hand.periods).toEqual([LOCAL_USAGE_TOP_EVERY_MS]);
  expect(await topOf('2030-03-01')).toMatchObject({
    computedAt: '2030-03-02T22:30:00.000Z',
    byRequests: [{ project: 'hourly', admitted: 3, refused: 0 }],
  });
  expect(await topOf('2030-03-02')).toBeUndefined();

  // An hour on, the same day: yesterday ranked again (the same figures, written anew).
  await t.documents.send(
    new PutCommand({ TableName: TABLE, Item: { counterId: 'project:hourly#2030-03-02', d_listPets: 8 } }),
  );
  nowMs += LOCAL_USAGE_TOP_EVERY_MS;
  await hand.tick();
  expect(await topOf('2030-03-01')).toMatchObject({ computedAt: '2030-03-02T23:30:00.000Z' });
  expect(await topOf('2030-03-02')).toBeUndefined();
  // Past midnight: the tick ranks the day that has just ended.
  nowMs = Date.UTC(2030, 2, 3, 0, 30, 0);
  await hand.tick();
  expect(await topOf('2030-03-02')).toMatchObject({
    computedAt: '2030-03-03T00:30:00.000Z',
    byRequests: [{ project: 'hourly', admitted: 8, refused: 0 }],
  });
  job.stop();
  expect(hand.stopped()).toBe(true);
});

test('a failed run is logged, never thrown; a tick while a run is going is skipped', async () => {
  let release: () => void = () => undefined;
  let runs = 0;
  const failing: UsageTopPorts = {
    projectNames: async () => {
      runs += 1;
      if (runs === 1) throw new Error('store unreachable');
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return [];
    },
    dayTotals: async () => new Map(),
    readTop: async () => undefined,
    writeTop: async () => undefined,
  };
  const logged: string[] = [];
  const hand = handTimer();
  const job = startLocalUsageTop({
    ports: failing,
    clock: () => Date.UTC(2030, 2, 2),
    timer: hand.timer,
    logError: (line) => logged.push(line),
  });
  await job.started;
  expect(logged).toEqual(['Ranking the busiest projects failed: store unreachable']);
  const first = hand.tick();
  const second = hand.tick();
  await Promise.resolve();
  release();
  await Promise.all([first, second]);
  expect(runs).toBe(2);
  job.stop();
});

describe('in local mode', () => {
  let api: LocalApi | undefined;
  afterAll(async () => {
    await api?.close();
  });

  test("npm start's server has written yesterday's top item once it is listening, and ticks hourly", async () => {
    const clock = fakeClock(Date.UTC(2030, 4, 20, 9, 0, 0));
    const hand = handTimer();
    try {
      api = await startLocalApi({ port: 0, dynamodbPort: 0, usageTopTimer: hand.timer });
      const documents = createDocumentClient(api.dynamodbEndpoint);
      try {
        const read = async (day: string) =>
          (await documents.send(new GetCommand({ TableName: TABLE, Key: { counterId: `top#${day}` } }))).Item;
        expect(await read('2030-05-19')).toMatchObject({
          day: '2030-05-19',
          computedAt: '2030-05-20T09:00:00.000Z',
        });
        expect(hand.periods).toEqual([LOCAL_USAGE_TOP_EVERY_MS]);
        clock.set(Date.UTC(2030, 4, 21, 0, 5, 0));
        await hand.tick();
        expect(await read('2030-05-20')).toMatchObject({ computedAt: '2030-05-21T00:05:00.000Z' });
      } finally {
        documents.destroy();
      }
    } finally {
      clock.restore();
    }
  }, 60_000);
});
