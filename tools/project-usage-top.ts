import { MAX_HISTORY_DAYS, dayOf } from '../lambda/core/usage-history';
import { type ProjectDayTotal, TOP_KEPT, type UsageTopReading } from '../lambda/core/usage-top';
import { UsageError } from './failures';

/**
 * `npm run projects -- usage --top [N] [--day YYYY-MM-DD]`: the projects that used the most on a
 * UTC day (issue 29), checked before connecting and rendered as text or one JSON line.
 */

/** How many projects `--top` lists without N. */
export const DEFAULT_TOP = 10;

const DAY_MS = 86_400_000;

/** N of `--top [N]`: a whole number from 1 to {@link TOP_KEPT}, 10 when absent. */
export function parseTopCount(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TOP;
  const count = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(count >= 1 && count <= TOP_KEPT)) {
    throw new UsageError(
      `--top ${JSON.stringify(value)}: give how many projects to list, a whole number from 1 to ${TOP_KEPT} (default ${DEFAULT_TOP}).`,
    );
  }
  return count;
}

/** `--day`: a real UTC date, today or up to {@link MAX_HISTORY_DAYS} days before (what the counters keep). */
export function parseTopDay(value: string | undefined, nowMs: number): string {
  const today = dayOf(nowMs);
  if (value === undefined) return today;
  const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at) || dayOf(at) !== value) {
    throw new UsageError(`--day ${JSON.stringify(value)} is not a date: give a UTC day as YYYY-MM-DD.`);
  }
  const earliest = dayOf(nowMs - MAX_HISTORY_DAYS * DAY_MS);
  if (value > today || value < earliest) {
    throw new UsageError(
      `--day ${value} is out of range: usage is kept ${MAX_HISTORY_DAYS} days, so give a day from ${earliest} to ${today} (today, UTC).`,
    );
  }
  return value;
}

/** `12 min`, `7 h 5 min`, `3 days`: how long ago, for people. */
export function ageText(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

const number = (value: number) => value.toLocaleString('en-US');

function table(title: string, rows: readonly ProjectDayTotal[]): string[] {
  if (rows.length === 0) return [`${title}: none.`];
  return [
    `${title}:`,
    `     #  ${'Project'.padEnd(30)}${'Admitted'.padStart(14)}${'Refused'.padStart(14)}`,
    ...rows.map(
      (row, index) =>
        `  ${String(index + 1).padStart(4)}  ${row.project.padEnd(30)}${number(row.admitted).padStart(14)}${number(row.refused).padStart(14)}`,
    ),
  ];
}

/** The report's lines: one JSON line, or text saying where the figures come from and how old they are. */
export function usageTopReport(reading: UsageTopReading, count: number, json: boolean): string[] {
  const { top, source, ageSeconds } = reading;
  const byRequests = top.byRequests.slice(0, count);
  const byRefusals = top.byRefusals.slice(0, count);
  if (json) {
    return [
      JSON.stringify({
        day: top.day,
        source,
        computedAt: top.computedAt,
        ageSeconds,
        projectsRead: top.projectsRead,
        total: top.total,
        byRequests,
        byRefusals,
      }),
    ];
  }
  const where =
    source === 'top-item'
      ? `from its top item, written ${top.computedAt} (${ageText(ageSeconds)} ago)`
      : `counted now, ${top.computedAt} (no top item for this day: the daily job ranks a day once it has ended)`;
  return [
    `Busiest projects of ${top.day} (UTC), ${where}.`,
    `${number(top.projectsRead)} projects read: ${number(top.total.admitted)} calls admitted, at least ${number(top.total.refused)} refused.`,
    'Admitted counts are exact; refused ones are lower bounds.',
    ...table(`By requests (top ${count})`, byRequests),
    ...table(`By refusals (top ${count})`, byRefusals),
  ];
}
