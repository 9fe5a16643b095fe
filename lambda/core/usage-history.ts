import type { PlanLimits } from './plans';

/**
 * A project's usage over time (issue 29): its admitted and refused API calls per operation, the
 * last 24 UTC hours by hour and the last 30 UTC days by day, as the console's Usage page and the
 * projects tool show them. Counted by the rate limiter on the project's day counter (the current
 * hour and the day's totals) and on one hour item per finished project-hour; doc/limits.md
 * describes the layout. Plain types and functions, no Node and no AWS: the page type-checks
 * against this file.
 */

/** One hour or one day of a project's calls. */
export interface UsageBucket {
  /** ISO start of the hour / day, UTC. */
  readonly start: string;
  /** Per operation; absent = 0. */
  readonly admitted: Readonly<Record<string, number>>;
  /** Per operation; absent = 0. */
  readonly refused: Readonly<Record<string, number>>;
}

/** `GET /console/api/usage/history`. */
export interface UsageHistory {
  /** ISO instant the figures were read. */
  readonly readAt: string;
  /** Operation names, in the order to stack them. */
  readonly operations: readonly string[];
  /** The project's plan. */
  readonly limits: { readonly perMinute: number; readonly perDay: number };
  /** The last 24 UTC hours, oldest first, current hour last. */
  readonly hours: readonly UsageBucket[];
  /** The last 30 UTC days, oldest first, today last. */
  readonly days: readonly UsageBucket[];
  /** Admitted counts are exact; refused ones lower bounds. */
  readonly refusedAreLowerBounds: true;
}

/** Hours and days a history shows. */
export const HISTORY_HOURS = 24;
export const HISTORY_DAYS = 30;

/** The days a history may be asked for (the tool's `--days`); counters are kept 35 days. */
export const MAX_HISTORY_DAYS = 35;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Counts per operation. */
export type OperationCounts = Readonly<Record<string, number>>;

/** Admitted and refused calls, per operation. */
export interface UsageCounts {
  readonly admitted: OperationCounts;
  readonly refused: OperationCounts;
}

/** What a project's day counter holds of its usage. */
export interface DayUsage {
  /** UTC date, `YYYY-MM-DD`. */
  readonly day: string;
  /** The whole day's counts. */
  readonly total: UsageCounts;
  /** The hour still on the day counter (hours since the epoch) and its counts, if any. */
  readonly currentHour?: { readonly hour: number; readonly counts: UsageCounts };
  /** Refusals written while the counter was in an earlier hour (its day spent, a ban), by their hour. */
  readonly refusedAtHours?: readonly HourUsage[];
}

/** A finished project-hour, moved off the day counter. */
export interface HourUsage {
  /** Hours since the epoch. */
  readonly hour: number;
  readonly counts: UsageCounts;
}

/** Reads a project's usage items: one read request for all of them (a BatchGetItem). */
export interface UsageReader {
  /** The day counters of `days` and the hour items of `hours` that exist; one store request. */
  readUsage(
    project: string,
    days: readonly string[],
    hours: readonly number[],
  ): Promise<{ readonly days: readonly DayUsage[]; readonly hours: readonly HourUsage[] }>;
}

/** Hours since the epoch of a moment. */
export function hourOf(nowMs: number): number {
  return Math.floor(nowMs / HOUR_MS);
}

/** UTC date `YYYY-MM-DD` of a moment. */
export function dayOf(nowMs: number): string {
  return new Date(Math.floor(nowMs / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** The UTC days ending with today's, oldest first. */
export function lastDays(nowMs: number, count: number): string[] {
  const today = Math.floor(nowMs / DAY_MS);
  return Array.from({ length: count }, (_, index) =>
    new Date((today - count + 1 + index) * DAY_MS).toISOString().slice(0, 10),
  );
}

/** The hours ending with the current one, oldest first. */
export function lastHours(nowMs: number, count: number): number[] {
  const current = hourOf(nowMs);
  return Array.from({ length: count }, (_, index) => current - count + 1 + index);
}

function add(into: Record<string, number>, counts: OperationCounts): void {
  for (const [operation, count] of Object.entries(counts)) {
    if (count > 0) into[operation] = (into[operation] ?? 0) + count;
  }
}

function bucket(start: number, counts: readonly UsageCounts[]): UsageBucket {
  const admitted: Record<string, number> = {};
  const refused: Record<string, number> = {};
  for (const part of counts) {
    add(admitted, part.admitted);
    add(refused, part.refused);
  }
  return { start: new Date(start).toISOString(), admitted, refused };
}

/**
 * The operations in stacking order: the known ones (the API's, in its route table's order) first,
 * then any other name the figures hold (an operation since removed), alphabetically.
 */
function operationsOf(known: readonly string[], buckets: readonly UsageBucket[]): string[] {
  const seen = new Set<string>();
  for (const { admitted, refused } of buckets) {
    for (const name of [...Object.keys(admitted), ...Object.keys(refused)]) seen.add(name);
  }
  const others = [...seen].filter((name) => !known.includes(name)).sort();
  return [...known, ...others];
}

/**
 * A project's usage history at `nowMs`: its last {@link HISTORY_HOURS} hours and `days` days, read
 * with one request. An hour is on an hour item once a later hour of its day was counted, else
 * still on its day's counter (the last hour a day counted stays there).
 */
export async function usageHistory(
  project: string,
  limits: PlanLimits,
  reader: UsageReader,
  nowMs: number,
  { operations, days: dayCount = HISTORY_DAYS }: { operations: readonly string[]; days?: number },
): Promise<UsageHistory> {
  const days = lastDays(nowMs, dayCount);
  const hours = lastHours(nowMs, HISTORY_HOURS);
  const read = await reader.readUsage(project, days, hours);
  const byHour = new Map<number, UsageCounts[]>();
  const atHour = (hour: number, counts: UsageCounts) =>
    byHour.set(hour, [...(byHour.get(hour) ?? []), counts]);
  for (const { hour, counts } of read.hours) atHour(hour, counts);
  for (const { currentHour, refusedAtHours = [] } of read.days) {
    if (currentHour) atHour(currentHour.hour, currentHour.counts);
    for (const { hour, counts } of refusedAtHours) atHour(hour, counts);
  }
  const totals = new Map(read.days.map(({ day, total }) => [day, total]));
  const hourBuckets = hours.map((hour) => bucket(hour * HOUR_MS, byHour.get(hour) ?? []));
  const dayBuckets = days.map((day) => {
    const total = totals.get(day);
    return bucket(Date.parse(`${day}T00:00:00Z`), total ? [total] : []);
  });
  return {
    readAt: new Date(nowMs).toISOString(),
    operations: operationsOf(operations, [...hourBuckets, ...dayBuckets]),
    limits: { perMinute: limits.perMinute, perDay: limits.perDay },
    hours: hourBuckets,
    days: dayBuckets,
    refusedAreLowerBounds: true,
  };
}
