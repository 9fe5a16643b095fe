import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { ANONYMOUS_LIMITS, type PlanLimits } from '../../../lambda/core/plans';
import type { CounterState } from '../../../lambda/core/rate-limit';
import {
  BAN_THRESHOLD,
  banDuration,
  type CounterStore,
  RateLimiter,
} from '../../../lambda/core/rate-limiter';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

const START = Date.UTC(2026, 10, 22, 9, 30, 0);
/**
 * The limiter counts against whatever limits it is given: these are the test's own, shaped like a
 * small plan's, so that the counts below stay true whatever the plan table says.
 */
const LIMITS: PlanLimits = { perMinute: 60, perDay: 1_000 };
let store: TestStore;
let counters: RateLimitStore;
let now = START;
let caller = 0;
const clock = () => now;
const nextCaller = () => `key:caller-${++caller}`;

/** Counts the writes (updates) and reads the limiter sends to the real store. */
function counting(inner: CounterStore) {
  const calls = { writes: 0, reads: 0 };
  const wrapped: CounterStore = {
    countInSameMinute: (...args) => ((calls.writes += 1), inner.countInSameMinute(...args)),
    countInNewMinute: (...args) => ((calls.writes += 1), inner.countInNewMinute(...args)),
    read: (...args) => ((calls.reads += 1), inner.read(...args)),
    ban: (...args) => ((calls.writes += 1), inner.ban(...args)),
  };
  return { calls, wrapped };
}

beforeAll(async () => {
  store = await startTestStore();
  counters = new RateLimitStore(store.documents, LOCAL_TABLE_NAMES.rateLimits);
});
afterAll(() => store.close());
beforeEach(() => {
  now = START;
});

async function admitMany(limiter: RateLimiter, identity: string, count: number, limits: PlanLimits = LIMITS) {
  const results = [];
  for (let index = 0; index < count; index++) results.push(await limiter.admit(identity, limits));
  return results;
}

describe('RateLimiter on the embedded store', () => {
  it('admits 60 requests of a caller allowed 60 a minute and refuses the 61st until the minute ends', async () => {
    const limiter = new RateLimiter(counters, clock);
    const identity = nextCaller();
    const results = await admitMany(limiter, identity, 61);
    expect(results.slice(0, 60).every((result) => result.admitted)).toBe(true);
    expect(results[60]).toMatchObject({ admitted: false, reason: 'minute', retryAtMs: START + 60_000 });
    now = START + 60_000;
    expect((await limiter.admit(identity, LIMITS)).admitted).toBe(true);
  });

  it("refuses the request past a caller's daily allowance even when spread over minutes, until midnight UTC", async () => {
    // Small figures: the rule is the same at 1,000 a day, and 40 writes keep the test fast on a busy machine.
    const daily: PlanLimits = { perMinute: 10, perDay: 40 };
    const limiter = new RateLimiter(counters, clock);
    const identity = nextCaller();
    for (let minute = 0; minute < 4; minute++) {
      now = START + minute * 60_000;
      const results = await admitMany(limiter, identity, 10, daily);
      expect(results.every((result) => result.admitted)).toBe(true);
    }
    now = START + 4 * 60_000;
    const refused = await limiter.admit(identity, daily);
    expect(refused).toMatchObject({ admitted: false, reason: 'day', retryAtMs: Date.UTC(2026, 10, 23) });
    now = Date.UTC(2026, 10, 23, 0, 0, 1);
    expect((await limiter.admit(identity, daily)).admitted).toBe(true);
  });

  it('admits exactly the remaining M of N concurrent requests, across separate instances', async () => {
    const identity = nextCaller();
    await admitMany(new RateLimiter(counters, clock), identity, 50);
    const instances = [1, 2, 3].map(() => new RateLimiter(counters, clock));
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) => instances[index % 3]?.admit(identity, LIMITS)),
    );
    expect(results.filter((result) => result?.admitted)).toHaveLength(10);
  });

  it('costs one write per admitted request (two when a new minute starts) and at most one per refusal', async () => {
    const { calls, wrapped } = counting(counters);
    const limiter = new RateLimiter(wrapped, clock);
    const identity = nextCaller();
    await admitMany(limiter, identity, 60);
    expect(calls.writes).toBe(60);
    await limiter.admit(identity, LIMITS);
    expect(calls.writes).toBe(61);
    await admitMany(limiter, identity, 5);
    expect(calls.writes).toBe(61); // the refusal is remembered until the window ends
    now += 60_000;
    const other = new RateLimiter(wrapped, clock); // an instance that has not seen this minute
    await other.admit(identity, LIMITS);
    expect(calls.writes).toBeLessThanOrEqual(63);
    expect(calls.reads).toBe(0); // a failed update returns the counter it found
  });

  it("costs a new instance two writes and no read for an active caller's first request", async () => {
    const identity = nextCaller();
    await admitMany(new RateLimiter(counters, clock), identity, 3);
    const { calls, wrapped } = counting(counters);
    const fresh = new RateLimiter(wrapped, clock); // guesses a new minute: the counter is already in it
    const admission = await fresh.admit(identity, LIMITS);
    expect(admission).toMatchObject({ admitted: true, state: { minuteCount: 4, dayCount: 4 } });
    expect(calls).toEqual({ writes: 2, reads: 0 });
    await fresh.admit(identity, LIMITS);
    expect(calls).toEqual({ writes: 3, reads: 0 });
  });

  it('refuses a limited caller on a new instance with one failed write and no read', async () => {
    const identity = nextCaller();
    await admitMany(new RateLimiter(counters, clock), identity, 60);
    const { calls, wrapped } = counting(counters);
    now += 10_000;
    const refused = await new RateLimiter(wrapped, clock).admit(identity, LIMITS);
    expect(refused).toMatchObject({ admitted: false, reason: 'minute', retryAtMs: START + 60_000 });
    expect(calls.reads).toBe(0);
    expect(calls.writes).toBeLessThanOrEqual(2);
  });

  it('recreates a counter that vanished while this instance knew its minute', async () => {
    const identity = nextCaller();
    const limiter = new RateLimiter(counters, clock);
    await limiter.admit(identity, LIMITS);
    await store.documents.send(
      new DeleteCommand({
        TableName: LOCAL_TABLE_NAMES.rateLimits,
        Key: { counterId: `${identity}#2026-11-22` },
      }),
    );
    const admission = await limiter.admit(identity, LIMITS);
    expect(admission).toMatchObject({ admitted: true, state: { minuteCount: 1, dayCount: 1 } });
  });

  it('does not count refused requests against the allowance', async () => {
    const limiter = new RateLimiter(counters, clock);
    const identity = nextCaller();
    await admitMany(limiter, identity, 65);
    const state = (await counters.read(`${identity}#2026-11-22`)) as CounterState;
    expect(state).toMatchObject({ minuteCount: 60, dayCount: 60 });
  });

  it('bans a caller that keeps calling while limited, for longer each time, and lifts the ban by itself', async () => {
    const limiter = new RateLimiter(counters, clock);
    const identity = nextCaller();
    const limits = ANONYMOUS_LIMITS;
    await admitMany(limiter, identity, limits.perMinute, limits);
    const refusals = await admitMany(limiter, identity, BAN_THRESHOLD, limits);
    expect(refusals.slice(0, -1).every((result) => !result.admitted && result.reason === 'minute')).toBe(
      true,
    );
    expect(refusals.at(-1)).toMatchObject({
      admitted: false,
      reason: 'banned',
      retryAtMs: now + banDuration(1),
    });

    // Another instance, without this one's memory, sees the ban in the store.
    now += 60_000;
    expect(await new RateLimiter(counters, clock).admit(identity, limits)).toMatchObject({
      admitted: false,
      reason: 'banned',
    });

    now = START + banDuration(1) + 1;
    const fresh = new RateLimiter(counters, clock);
    await admitMany(fresh, identity, limits.perMinute, limits);
    const second = (await admitMany(fresh, identity, BAN_THRESHOLD, limits)).at(-1);
    expect(second).toMatchObject({ admitted: false, reason: 'banned', retryAtMs: now + banDuration(2) });
    expect(banDuration(2)).toBe(2 * banDuration(1));

    now += banDuration(2) + 1;
    expect((await new RateLimiter(counters, clock).admit(identity, limits)).admitted).toBe(true);
  });

  it("bans only the subject that kept calling, on every instance, while the caller's counts refuse all its subjects", async () => {
    const limiter = new RateLimiter(counters, clock);
    const project = nextCaller();
    const limits = LIMITS;
    await admitMany(limiter, project, limits.perMinute, limits);
    // Refusals are counted per subject: 17 between two keys earn no ban.
    for (let index = 1; index < BAN_THRESHOLD; index++) {
      expect(await limiter.admit(project, limits, 'key:a')).toMatchObject({ reason: 'minute' });
      if (index > 1)
        expect(await limiter.admit(project, limits, 'key:b')).toMatchObject({ reason: 'minute' });
    }
    expect(await limiter.admit(project, limits, 'key:a')).toMatchObject({
      reason: 'banned',
      retryAtMs: now + banDuration(1),
    });
    expect(await limiter.admit(project, limits, 'key:b')).toMatchObject({ reason: 'minute' });

    // Next minute, on an instance without this one's memory: the ban holds for its key alone,
    // and the admitted key's counts are the caller's.
    now += 60_000;
    const other = new RateLimiter(counters, clock);
    expect(await other.admit(project, limits, 'key:a')).toMatchObject({ admitted: false, reason: 'banned' });
    expect(await other.admit(project, limits, 'key:b')).toMatchObject({
      admitted: true,
      state: { minuteCount: 1, dayCount: limits.perMinute + 1 },
    });
    expect(await other.admit(project, limits)).toMatchObject({ admitted: true, state: { minuteCount: 2 } });
  });

  it("carries a subject's ban past midnight into its caller's next counter", async () => {
    now = Date.UTC(2026, 10, 22, 23, 59, 0);
    const limiter = new RateLimiter(counters, clock);
    const caller = nextCaller();
    const limits = ANONYMOUS_LIMITS;
    await admitMany(limiter, caller, limits.perMinute, limits);
    for (let index = 0; index < BAN_THRESHOLD; index++) await limiter.admit(caller, limits, 'key:late');
    now = Date.UTC(2026, 10, 23, 0, 1, 0);
    const fresh = new RateLimiter(counters, clock);
    expect(await fresh.admit(caller, limits, 'key:late')).toMatchObject({ reason: 'banned' });
    expect((await fresh.admit(caller, limits, 'key:other')).admitted).toBe(true);
  });

  it('counts a request from an instance whose clock lags a minute boundary into the later minute', async () => {
    const identity = nextCaller();
    now = START + 60_000; // instance A is already in the next minute
    await new RateLimiter(counters, clock).admit(identity, LIMITS);
    now = START + 60_000 - 5; // instance B's clock is 5 ms behind
    const lagging = await new RateLimiter(counters, clock).admit(identity, LIMITS);
    expect(lagging.admitted).toBe(true);
    expect(lagging.state).toMatchObject({ minute: Math.floor((START + 60_000) / 60_000), minuteCount: 2 });
  });
});
