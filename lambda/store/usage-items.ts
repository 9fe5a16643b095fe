import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DayUsage, HourUsage, OperationCounts, UsageCounts } from '../core/usage-history';
import { storeCall } from './dynamodb-client';

/**
 * The usage attributes of the rate-limit table's items (issue 29; doc/limits.md, "Usage
 * counters"). A project's day counter (`project:<name>#<YYYY-MM-DD>`) holds, besides its minute
 * and day counts:
 * - `hour`: the hour its hour counts are of (hours since the epoch);
 * - `h_<operation>` and `hr_<operation>`: that hour's admitted and refused calls;
 * - `d_<operation>` and `dr_<operation>`: the day's.
 * An hour item (`project:<name>#<YYYY-MM-DD>T<HH>`) holds a finished hour's `h_`/`hr_` counts
 * and its `hour`. Flat attributes, since ADD works on top-level attributes only; names always
 * go through ExpressionAttributeNames.
 */

export const HOUR_ATTRIBUTE = 'hour';

export const usageAttribute = {
  hourAdmitted: (operation: string) => `h_${operation}`,
  hourRefused: (operation: string) => `hr_${operation}`,
  dayAdmitted: (operation: string) => `d_${operation}`,
  dayRefused: (operation: string) => `dr_${operation}`,
} as const;

const HOUR_MS = 3_600_000;

/** The hour item of a counter's hour: `<counterId>T<HH>`. */
export function hourItemId(counterId: string, hour: number): string {
  return `${counterId}T${new Date(hour * HOUR_MS).toISOString().slice(11, 13)}`;
}

/** The day counter of a project's day. */
export function projectDayId(project: string, day: string): string {
  return `project:${project}#${day}`;
}

function countsWithPrefix(item: Record<string, unknown>, prefix: string): OperationCounts {
  const counts: Record<string, number> = {};
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(prefix) && typeof value === 'number' && value > 0) {
      counts[name.slice(prefix.length)] = value;
    }
  }
  return counts;
}

/** The hour counts (`h_`, `hr_`) of an item. */
export function hourCountsOf(item: Record<string, unknown>): UsageCounts {
  return { admitted: countsWithPrefix(item, 'h_'), refused: countsWithPrefix(item, 'hr_') };
}

/** The day counts (`d_`, `dr_`) of a day counter. */
export function dayCountsOf(item: Record<string, unknown>): UsageCounts {
  return { admitted: countsWithPrefix(item, 'd_'), refused: countsWithPrefix(item, 'dr_') };
}

/** A day counter's usage. */
export function dayUsageOf(item: Record<string, unknown>, day: string): DayUsage {
  const hour = item[HOUR_ATTRIBUTE];
  return {
    day,
    total: dayCountsOf(item),
    ...(typeof hour === 'number' ? { currentHour: { hour, counts: hourCountsOf(item) } } : {}),
  };
}

/** BatchGetItem takes at most this many keys per request. */
export const BATCH_GET_LIMIT = 100;

/**
 * Gets items by counter id with one BatchGetItem per 100 ids (eventually consistent: usage may
 * lag a write by a moment). Keys the store leaves unprocessed (throttling) are asked again.
 */
export async function batchGetCounters(
  client: DynamoDBDocumentClient,
  tableName: string,
  counterIds: readonly string[],
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < counterIds.length; start += BATCH_GET_LIMIT) {
    let keys: Record<string, unknown>[] = counterIds
      .slice(start, start + BATCH_GET_LIMIT)
      .map((counterId) => ({ counterId }));
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt >= 5) throw new Error(`${keys.length} usage items stayed unprocessed`);
      const answer = await storeCall(() =>
        client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys } } })),
      );
      items.push(...(answer.Responses?.[tableName] ?? []));
      keys = answer.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return items;
}

/** A project's day counters and hour items: one BatchGetItem (30 days and 24 hours are 54 keys). */
export async function readProjectUsage(
  client: DynamoDBDocumentClient,
  tableName: string,
  project: string,
  days: readonly string[],
  hours: readonly number[],
): Promise<{ days: DayUsage[]; hours: HourUsage[] }> {
  const dayIds = new Map(days.map((day) => [projectDayId(project, day), day]));
  const hourIds = new Map(
    hours.map((hour) => {
      const day = new Date(hour * HOUR_MS).toISOString().slice(0, 10);
      return [hourItemId(projectDayId(project, day), hour), hour];
    }),
  );
  const items = await batchGetCounters(client, tableName, [...dayIds.keys(), ...hourIds.keys()]);
  const found = { days: [] as DayUsage[], hours: [] as HourUsage[] };
  for (const item of items) {
    const counterId = String(item.counterId);
    const day = dayIds.get(counterId);
    if (day !== undefined) found.days.push(dayUsageOf(item, day));
    const hour = hourIds.get(counterId);
    if (hour !== undefined) found.hours.push({ hour, counts: hourCountsOf(item) });
  }
  return found;
}
