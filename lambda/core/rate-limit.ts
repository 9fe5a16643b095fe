import type { PlanLimits } from './plans';

/**
 * Rate-limit arithmetic: fixed windows aligned to UTC minutes and UTC days, and
 * what a caller has left in them (lambda/api/rate-limit.ts writes that as headers). Fixed windows make every number a client sees
 * exact and easy to reason about (the reset is a wall-clock boundary), need one
 * counter per window, and cost one conditional write per admitted request; the
 * price, a burst of up to twice the per-minute limit across a minute boundary,
 * is bounded and documented.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The windows a moment falls into. */
export interface Windows {
  /** Minutes since the Unix epoch. */
  readonly minute: number;
  readonly minuteResetMs: number;
  /** UTC date, `YYYY-MM-DD`. */
  readonly day: string;
  readonly dayResetMs: number;
}

export function windowsAt(nowMs: number): Windows {
  const minute = Math.floor(nowMs / MINUTE_MS);
  const dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return {
    minute,
    minuteResetMs: (minute + 1) * MINUTE_MS,
    day: new Date(dayStart).toISOString().slice(0, 10),
    dayResetMs: dayStart + DAY_MS,
  };
}

/** Counts of one caller as the store holds them. */
export interface CounterState {
  /** The minute window `minuteCount` belongs to. */
  readonly minute: number;
  readonly minuteCount: number;
  readonly dayCount: number;
  /** Epoch milliseconds until which the caller is banned, if ever. */
  readonly bannedUntil?: number;
  /** Bans given to the caller this UTC day. */
  readonly banCount?: number;
  /** The hour (since the epoch) the counter's usage counts are of, on a project's counter (issue 29). */
  readonly hour?: number;
}

export type RefusalReason = 'minute' | 'day' | 'banned';

/** The outcome of counting one request. */
export type Admission =
  | {
      readonly admitted: true;
      readonly limits: PlanLimits;
      readonly state: CounterState;
      readonly nowMs: number;
    }
  | {
      readonly admitted: false;
      readonly reason: RefusalReason;
      readonly limits: PlanLimits;
      readonly state: CounterState;
      readonly nowMs: number;
      /** Epoch milliseconds when the caller may retry. */
      readonly retryAtMs: number;
    };

/** Why a counter refuses the next request now, if it does. */
export function refusalOf(state: CounterState, limits: PlanLimits, nowMs: number): RefusalReason | undefined {
  const windows = windowsAt(nowMs);
  if (state.bannedUntil !== undefined && state.bannedUntil > nowMs) return 'banned';
  if (state.dayCount >= limits.perDay) return 'day';
  // A counter already in a later minute (another instance's clock ran ahead) counts as current.
  if (state.minute >= windows.minute && state.minuteCount >= limits.perMinute) return 'minute';
  return undefined;
}

/** When a refusal ends. */
export function retryAt(reason: RefusalReason, state: CounterState, nowMs: number): number {
  const windows = windowsAt(nowMs);
  if (reason === 'banned') return state.bannedUntil ?? nowMs;
  return reason === 'day' ? windows.dayResetMs : (Math.max(state.minute, windows.minute) + 1) * 60_000;
}

/** Where a caller stands in one window, as the rate-limit headers report it. */
export interface WindowReport {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  readonly remaining: number;
  readonly resetMs: number;
  readonly seconds: number;
}

/** The minute and the day window of an admission: limit, requests left, reset. */
export function windowReports(admission: Admission): [WindowReport, WindowReport] {
  const { limits, state, nowMs } = admission;
  const windows = windowsAt(nowMs);
  const minuteUsed = state.minute >= windows.minute ? state.minuteCount : 0;
  return [
    {
      name: 'minute',
      limit: limits.perMinute,
      remaining: Math.max(0, limits.perMinute - minuteUsed),
      resetMs: windows.minuteResetMs,
      seconds: 60,
    },
    {
      name: 'day',
      limit: limits.perDay,
      remaining: Math.max(0, limits.perDay - state.dayCount),
      resetMs: windows.dayResetMs,
      seconds: 86_400,
    },
  ];
}
