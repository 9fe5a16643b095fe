import { type UsageTopPorts, writeDailyUsageTop } from '../lambda/core/usage-top';

/**
 * Local mode's stand-in for the daily schedule of the busiest projects (issue 29): the job runs
 * once at start, so a local store that was down at midnight still gets yesterday's `top` item, and
 * then every hour (the AWS schedule runs daily; a repeated run rewrites the same figures).
 */

/** Every hour, as doc/limits.md says. */
export const LOCAL_USAGE_TOP_EVERY_MS = 60 * 60_000;

/** What repeats the job: the wall clock's interval, or a test's hand. */
export interface RepeatTimer {
  /** Calls `run` every `everyMs` until the returned function is called. */
  every(everyMs: number, run: () => Promise<void>): () => void;
}

/** Node's interval, which never keeps the process alive. */
export const INTERVAL_TIMER: RepeatTimer = {
  every(everyMs, run) {
    const timer = setInterval(() => void run(), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};

export interface LocalUsageTopJob {
  /** The run at start: resolves when it has written (or failed and said so). */
  readonly started: Promise<void>;
  stop(): void;
}

/**
 * Starts the job: a run now, then one every {@link LOCAL_USAGE_TOP_EVERY_MS} on `timer`. A run
 * while the previous one is still going is skipped; a failure is logged, never fatal.
 */
export function startLocalUsageTop({
  ports,
  clock,
  timer = INTERVAL_TIMER,
  logError = (line) => console.error(line),
}: {
  ports: UsageTopPorts;
  clock: () => number;
  timer?: RepeatTimer;
  logError?: (line: string) => void;
}): LocalUsageTopJob {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= writeDailyUsageTop(ports, clock())
      .then(
        () => undefined,
        (error: unknown) =>
          logError(
            `Ranking the busiest projects failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const started = run();
  const stop = timer.every(LOCAL_USAGE_TOP_EVERY_MS, run);
  return { started, stop };
}
