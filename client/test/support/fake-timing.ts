import type { Timing } from '../../src/index.ts';

/**
 * A clock that moves only when the client sleeps, a sleep that records its waits and
 * returns at once, and "random" numbers taken in order from a list (a test that needs
 * more than it gave fails).
 */
export function fakeTiming(randoms: readonly number[] = [], start = Date.parse('2030-01-01T00:00:00Z')) {
  let now = start;
  const left = [...randoms];
  const sleeps: number[] = [];
  const timing: Timing = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => {
      const next = left.shift();
      if (next === undefined) throw new Error('fakeTiming: no random number left');
      return next;
    },
  };
  return { timing, sleeps };
}
