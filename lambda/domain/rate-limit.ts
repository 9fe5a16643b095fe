import type { PlanLimits } from './plans';

/**
 * Rate-limit arithmetic: fixed windows aligned to UTC minutes and UTC days, and
 * the headers that describe them. Fixed windows make every number a client sees
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

interface WindowReport {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  readonly remaining: number;
  readonly resetMs: number;
  readonly seconds: number;
}

function reports(admission: Admission): [WindowReport, WindowReport] {
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

const seconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * The rate-limit headers of a response. `X-RateLimit-*` describe the window
 * closest to exhaustion (fewest requests left; on a tie, the minute, which resets
 * first); a refusal reports the window that refused. `RateLimit-Policy` and
 * `RateLimit` (draft-ietf-httpapi-ratelimit-headers) describe both windows.
 */
export function rateLimitHeaders(admission: Admission): Record<string, string> {
  const [minute, day] = reports(admission);
  let shown = day.remaining < minute.remaining ? day : minute;
  let remaining = shown.remaining;
  let resetMs = shown.resetMs;
  if (!admission.admitted) {
    shown = admission.reason === 'day' ? day : minute;
    remaining = 0;
    resetMs = admission.retryAtMs;
  }
  const left = (report: WindowReport) => (admission.admitted || report !== shown ? report.remaining : 0);
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(shown.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(seconds(resetMs)),
    'RateLimit-Policy': [minute, day].map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', '),
    RateLimit: [minute, day]
      .map((w) => `"${w.name}";r=${left(w)};t=${Math.max(0, seconds(w.resetMs - admission.nowMs))}`)
      .join(', '),
  };
  if (!admission.admitted)
    headers['Retry-After'] = String(Math.max(1, seconds(admission.retryAtMs - admission.nowMs)));
  return headers;
}
