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
