import { setClock } from '../../lambda/shared/clock';

/** Replaces the service clock with one the test moves by hand; `restore` puts the wall clock back. */
export function fakeClock(startMs: number) {
  let current = startMs;
  const restore = setClock(() => current);
  return {
    now: () => current,
    set: (ms: number) => {
      current = ms;
    },
    advance: (ms: number) => {
      current += ms;
    },
    restore,
  };
}

/**
 * A fake clock for each test of the file, each starting 10 s into a UTC day of its own (from
 * `firstDay` on), so that no two tests share a rate-limit window; restored after each test.
 * `clock()` is the current test's clock and `dayStart()` the start of its day.
 */
export function clockInADayOfItsOwn(firstDayMs: number) {
  let day = 0;
  let clock: ReturnType<typeof fakeClock> | undefined;
  const dayStart = () => firstDayMs + day * 86_400_000;
  beforeEach(() => {
    day += 1;
    clock = fakeClock(dayStart() + 10_000);
  });
  afterEach(() => clock?.restore());
  return {
    clock: () => {
      if (!clock) throw new Error('the clock exists only inside a test');
      return clock;
    },
    dayStart,
  };
}
