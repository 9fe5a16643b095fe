import type { UsageBucket, UsageHistory } from './contract';

/**
 * The Usage page's numbers, from the console API's usage history: the chart's stacked series,
 * the table's rows, the exports and the words for times and zones. Plain functions of their
 * arguments (no DOM, no clock), so that tests run them with any zone and locale.
 */

/** Which of the two windows: the last 24 UTC hours, or the last 30 UTC days. */
export type UsageWindow = 'hours' | 'days';

const BUCKET_SECONDS: Record<UsageWindow, number> = { hours: 3600, days: 86_400 };

/** A layer of the stacked chart: its values are the top of its bar, from the axis (bars are drawn tallest first). */
export interface StackLayer {
  /** The operation's name, or `refused` for the refused requests stacked on the admitted ones. */
  readonly label: string;
  readonly kind: 'admitted' | 'refused';
  /** The operation's place in the history's stacking order (refused: the number of operations). */
  readonly index: number;
  readonly values: readonly number[];
}

export interface StackedSeries {
  /** Each bucket's middle, in seconds since the epoch (uPlot's time unit), so a bar sits across its hour or day. */
  readonly x: readonly number[];
  /** The chart's x range: from the first bucket's start to the end of the last one. */
  readonly range: readonly [number, number];
  /** Tallest first: refused on top, then the operations from the last to the first. */
  readonly layers: readonly StackLayer[];
  /** The highest bar (admitted and refused), for the y range. */
  readonly highest: number;
}

const sumOf = (counts: Readonly<Record<string, number>>, operations: readonly string[]) =>
  operations.reduce((total, operation) => total + (counts[operation] ?? 0), 0);

/** The stacked bars of one window: each operation's admitted requests on the ones before it, the refused on top. */
export function stackedSeries(
  buckets: readonly UsageBucket[],
  operations: readonly string[],
  window: UsageWindow,
): StackedSeries {
  const seconds = BUCKET_SECONDS[window];
  const starts = buckets.map((bucket) => Date.parse(bucket.start) / 1000);
  const running = buckets.map(() => 0);
  const stacked = operations.map((operation, index): StackLayer => {
    const values = buckets.map((bucket, at) => {
      const top = (running[at] ?? 0) + (bucket.admitted[operation] ?? 0);
      running[at] = top;
      return top;
    });
    return { label: operation, kind: 'admitted', index, values };
  });
  const refused: StackLayer = {
    label: 'refused',
    kind: 'refused',
    index: operations.length,
    values: buckets.map((bucket, at) => (running[at] ?? 0) + sumOf(bucket.refused, operations)),
  };
  const first = starts[0] ?? 0;
  const last = starts.at(-1) ?? 0;
  return {
    x: starts.map((start) => start + seconds / 2),
    range: [first, last + seconds],
    layers: [refused, ...stacked.reverse()],
    highest: Math.max(0, ...refused.values),
  };
}

/**
 * The line drawn across each chart: the plan's per-day limit on the days; on the hours, the most
 * an hour can admit, which is the per-minute limit for each of its 60 minutes unless the day's
 * limit is lower.
 */
export function limitLine(limits: UsageHistory['limits'], window: UsageWindow): number {
  return window === 'days' ? limits.perDay : Math.min(limits.perMinute * 60, limits.perDay);
}

/** The limit line is drawn when the bars reach at least this share of it; above, it would flatten them. */
export const LIMIT_IN_VIEW_SHARE = 0.2;

/**
 * The top of a chart's y axis, and whether its limit line is within it: a little above the
 * highest bar, raised to the limit when the bars reach a fifth of it (or there are none), so
 * that a quiet project's bars are not drawn flat under a far-off line.
 */
export function yRange(highest: number, limit: number): { top: number; limitShown: boolean } {
  const limitShown = highest === 0 || highest >= limit * LIMIT_IN_VIEW_SHARE;
  const top = Math.ceil((limitShown ? Math.max(highest, limit) : highest) * 1.08);
  return { top: Math.max(top, 1), limitShown };
}

/** A row of the table: one hour or day, the admitted requests per operation and in all, the refused ones. */
export interface UsageRow {
  readonly start: string;
  /** In the history's order of operations. */
  readonly admitted: readonly number[];
  readonly admittedTotal: number;
  readonly refusedTotal: number;
}

export function usageRows(buckets: readonly UsageBucket[], operations: readonly string[]): UsageRow[] {
  return buckets.map((bucket) => ({
    start: bucket.start,
    admitted: operations.map((operation) => bucket.admitted[operation] ?? 0),
    admittedTotal: sumOf(bucket.admitted, operations),
    refusedTotal: sumOf(bucket.refused, operations),
  }));
}

/** A cell that a spreadsheet would run as a formula is quoted with a leading apostrophe. */
function csvCell(value: string | number): string {
  const text = typeof value === 'number' ? String(value) : /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const CSV_HEADER = ['window', 'start_utc', 'operation', 'admitted', 'refused_at_least'] as const;

/**
 * The history as CSV (RFC 4180, CRLF): one line per hour or day and operation, every operation
 * on every line's hour or day (0 where none), hours first, oldest first.
 */
export function usageCsv(history: UsageHistory): string {
  const lines = [CSV_HEADER.join(',')];
  for (const window of ['hours', 'days'] as const) {
    for (const bucket of history[window]) {
      for (const operation of history.operations) {
        lines.push(
          [
            window === 'hours' ? 'hour' : 'day',
            bucket.start,
            operation,
            bucket.admitted[operation] ?? 0,
            bucket.refused[operation] ?? 0,
          ]
            .map(csvCell)
            .join(','),
        );
      }
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The history as JSON: the console API's answer as read, with the project it is of. */
export function usageJson(project: string, history: UsageHistory): string {
  return `${JSON.stringify({ project, ...history }, null, 2)}\n`;
}

/** The exports' file name: `usage-<project>-<read at, UTC, to the second>.<ext>`, with no colon. */
export function exportName(project: string, readAt: string, extension: 'csv' | 'json'): string {
  const stamp = readAt.replace(/\.\d+Z$/, 'Z').replaceAll(':', '');
  return `usage-${project}-${stamp}.${extension}`;
}

/** Where the words for times come from: the viewer's zone and language unless a test names them. */
export interface TimeWords {
  readonly timeZone?: string;
  readonly locale?: string;
}

/** The start of an hour, in the viewer's zone: `4 Mar, 14:30`. */
export function hourLabel(iso: string, words: TimeWords = {}): string {
  return new Intl.DateTimeFormat(words.locale, {
    timeZone: words.timeZone,
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(iso));
}

/** A UTC day, in UTC (it is the limiter's day, whatever the viewer's zone): `Tue 4 Mar`. */
export function dayLabel(iso: string, words: TimeWords = {}): string {
  return new Intl.DateTimeFormat(words.locale, {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  }).format(new Date(iso));
}

/** The viewer's zone, with its offset from UTC at that moment: `Asia/Colombo (UTC+05:30)`, `UTC`. */
export function zoneLabel(at: Date, words: TimeWords = {}): string {
  const format = new Intl.DateTimeFormat('en', { timeZone: words.timeZone, timeZoneName: 'longOffset' });
  const zone = format.resolvedOptions().timeZone;
  const offset = format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const utc = /^GMT([+-]00:00)?$/.test(offset) ? 'UTC' : offset.replace('GMT', 'UTC');
  return zone === 'UTC' || zone === 'Etc/UTC' ? 'UTC' : `${zone} (${utc})`;
}

/**
 * A tick of a chart's time axis (seconds since the epoch): on the hours, the time in the
 * viewer's zone (`10:30`); on the days, the UTC date (`4 Mar`).
 */
export function axisLabel(seconds: number, span: UsageWindow, words: TimeWords = {}): string {
  const format: Intl.DateTimeFormatOptions =
    span === 'hours'
      ? { timeZone: words.timeZone, hour: '2-digit', minute: '2-digit' }
      : { timeZone: 'UTC', day: 'numeric', month: 'short' };
  return new Intl.DateTimeFormat(words.locale, format).format(new Date(seconds * 1000));
}
