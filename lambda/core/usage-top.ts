import { USAGE_RETENTION_DAYS } from './usage-counting';
import { dayOf, type UsageCounts } from './usage-history';

/**
 * The projects that used the platform most on a UTC day, by admitted requests and by refusals
 * (issue 29; doc/limits.md, "The busiest projects"). A daily job reads every project's day
 * counter, in batches of the project list (never a scan of the counters, never an index keyed by
 * day, which would add an index write to every request and put the platform in one partition),
 * and writes one `top` item per finished day; `npm run projects -- usage --top` reads it. Plain
 * types and functions, no AWS.
 */

/** One project's calls on the day: every operation together. */
export interface ProjectDayTotal {
  readonly project: string;
  readonly admitted: number;
  /** A lower bound, as every refused count. */
  readonly refused: number;
}

/** The busiest projects of one UTC day. */
export interface UsageTop {
  /** UTC date, `YYYY-MM-DD`. */
  readonly day: string;
  /** ISO instant the day counters were read. */
  readonly computedAt: string;
  /** Projects whose day counter was asked for (every project at that moment). */
  readonly projectsRead: number;
  /** The platform's calls that day, every project together. */
  readonly total: { readonly admitted: number; readonly refused: number };
  /** At most {@link TOP_KEPT}, most admitted first; projects with none left out. */
  readonly byRequests: readonly ProjectDayTotal[];
  /** At most {@link TOP_KEPT}, most refused first; projects with none left out. */
  readonly byRefusals: readonly ProjectDayTotal[];
}

/** How many projects each list of a `top` item keeps (and the most the tool shows). */
export const TOP_KEPT = 100;

/** What the daily job and the tool read and write; the store speaks AWS, this file does not. */
export interface UsageTopPorts {
  /** Every project's name (the projects table, not the counters). */
  projectNames(): Promise<readonly string[]>;
  /** The day counts of the projects that have a day counter for `day`: BatchGetItem, 100 keys a request. */
  dayTotals(projects: readonly string[], day: string): Promise<ReadonlyMap<string, UsageCounts>>;
  /** The `top` item of a day, if one was written (and not yet expired). */
  readTop(day: string): Promise<UsageTop | undefined>;
  /** Writes (or replaces) the `top` item of `top.day`, kept until `expiresAtSeconds`. */
  writeTop(top: UsageTop, expiresAtSeconds: number): Promise<void>;
}

const DAY_MS = 86_400_000;

function sum(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((total, count) => total + count, 0);
}

/** Most of `by` first; ties by the other count, then by name, so the order never depends on reading order. */
function ranked(
  totals: readonly ProjectDayTotal[],
  by: 'admitted' | 'refused',
  keep: number,
): ProjectDayTotal[] {
  const other = by === 'admitted' ? 'refused' : 'admitted';
  return totals
    .filter((total) => total[by] > 0)
    .sort((a, b) => b[by] - a[by] || b[other] - a[other] || a.project.localeCompare(b.project))
    .slice(0, keep);
}

/** The busiest projects of `day` from their day counts (a plain function of what was read). */
export function rankUsage(
  day: string,
  projectsRead: number,
  counts: ReadonlyMap<string, UsageCounts>,
  computedAtMs: number,
): UsageTop {
  const totals = [...counts].map(([project, { admitted, refused }]) => ({
    project,
    admitted: sum(admitted),
    refused: sum(refused),
  }));
  return {
    day,
    computedAt: new Date(computedAtMs).toISOString(),
    projectsRead,
    total: {
      admitted: totals.reduce((all, total) => all + total.admitted, 0),
      refused: totals.reduce((all, total) => all + total.refused, 0),
    },
    byRequests: ranked(totals, 'admitted', TOP_KEPT),
    byRefusals: ranked(totals, 'refused', TOP_KEPT),
  };
}

/** Reads every project's day counter of `day` now, and ranks them. */
export async function computeUsageTop(ports: UsageTopPorts, day: string, nowMs: number): Promise<UsageTop> {
  const projects = await ports.projectNames();
  return rankUsage(day, projects.length, await ports.dayTotals(projects, day), nowMs);
}

/** When a day's `top` item expires: with the day counters it was made from, 35 days after the day ends. */
export function topExpiresAtSeconds(day: string): number {
  return Math.floor((Date.parse(`${day}T00:00:00Z`) + (1 + USAGE_RETENTION_DAYS) * DAY_MS) / 1000);
}

/** The UTC day before the one of `nowMs`: the last finished day. */
export function previousDay(nowMs: number): string {
  return dayOf(nowMs - DAY_MS);
}

/**
 * The daily job: ranks the last finished UTC day (its counts are final but for refusals an
 * instance writes late, which are lower bounds anyway) and writes its `top` item. Running it again
 * replaces the item with the same figures, so a repeated or overlapping run is harmless.
 */
export async function writeDailyUsageTop(ports: UsageTopPorts, nowMs: number): Promise<UsageTop> {
  const day = previousDay(nowMs);
  const top = await computeUsageTop(ports, day, nowMs);
  await ports.writeTop(top, topExpiresAtSeconds(day));
  return top;
}

/**
 * The scheduled job's entry: each invocation ranks the last finished day at `clock()` and says
 * what it wrote in one JSON line (`write`: the runtime sends it to the function's log group).
 */
export function dailyUsageTopJob(
  ports: UsageTopPorts,
  clock: () => number,
  write: (line: string) => void = (line) => console.log(line),
): () => Promise<Pick<UsageTop, 'day' | 'projectsRead' | 'total'>> {
  return async () => {
    const { day, projectsRead, total } = await writeDailyUsageTop(ports, clock());
    write(JSON.stringify({ level: 'INFO', message: 'usage top written', day, projectsRead, total }));
    return { day, projectsRead, total };
  };
}

/** What `usage --top` shows for a day, and where it comes from. */
export type UsageTopReading =
  | { readonly source: 'top-item'; readonly top: UsageTop; readonly ageSeconds: number }
  | { readonly source: 'computed'; readonly top: UsageTop; readonly ageSeconds: 0 };

/**
 * The busiest projects of `day` as the tool shows them: the day's `top` item when the job wrote
 * one; otherwise (today, which no job has ranked yet, or a day the job missed) ranked now from
 * the day counters, which are kept as long as a `top` item.
 */
export async function readUsageTop(
  ports: UsageTopPorts,
  day: string,
  nowMs: number,
): Promise<UsageTopReading> {
  const stored = day === dayOf(nowMs) ? undefined : await ports.readTop(day);
  if (stored) {
    const ageSeconds = Math.max(0, Math.floor((nowMs - Date.parse(stored.computedAt)) / 1000));
    return { source: 'top-item', top: stored, ageSeconds };
  }
  return { source: 'computed', top: await computeUsageTop(ports, day, nowMs), ageSeconds: 0 };
}
