import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { UsageWrite } from '../core/usage-counting';
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

/** Refusals a flush wrote for hours the counter was not in (`r<HH>_<operation>`), by hour. */
function refusedAtHoursOf(item: Record<string, unknown>, day: string): HourUsage[] {
  const dayHour = Date.parse(`${day}T00:00:00Z`) / HOUR_MS;
  const byHour = new Map<number, Record<string, number>>();
  for (const [name, value] of Object.entries(item)) {
    const match = /^r(\d\d)_(.+)$/.exec(name);
    if (!match || typeof value !== 'number' || value <= 0) continue;
    const hour = dayHour + Number(match[1]);
    byHour.set(hour, { ...byHour.get(hour), [match[2] as string]: value });
  }
  return [...byHour].map(([hour, refused]) => ({ hour, counts: { admitted: {}, refused } }));
}

/** A day counter's usage. */
export function dayUsageOf(item: Record<string, unknown>, day: string): DayUsage {
  const hour = item[HOUR_ATTRIBUTE];
  return {
    day,
    total: dayCountsOf(item),
    ...(typeof hour === 'number' ? { currentHour: { hour, counts: hourCountsOf(item) } } : {}),
    refusedAtHours: refusedAtHoursOf(item, day),
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

/** The parts a usage write adds to a counting write's update (values `:one` is the caller's). */
export interface UsageClauses {
  readonly set: string[];
  readonly add: string[];
  readonly remove: string[];
  readonly names: Record<string, string>;
  readonly values: Record<string, unknown>;
}

/**
 * The clauses that count an admitted call of `usage.operation` and carry the instance's unwritten
 * refusals: ADDs within the counter's hour; on a new hour, SETs that start the hour's counts,
 * REMOVEs of the finished hour's other counts (ALL_OLD gives them to the hour item), and `hour`.
 * The day's counts are always ADDed.
 */
export function usageClauses(usage: UsageWrite): UsageClauses {
  const clauses: UsageClauses = { set: [], add: [], remove: [], names: {}, values: {} };
  let index = 0;
  const name = (attribute: string) => {
    const placeholder = `#u${index++}`;
    clauses.names[placeholder] = attribute;
    return placeholder;
  };
  const hourCount = (attribute: string, value: string) => {
    if (usage.newHour) clauses.set.push(`${name(attribute)} = ${value}`);
    else clauses.add.push(`${name(attribute)} ${value}`);
  };
  hourCount(usageAttribute.hourAdmitted(usage.operation), ':one');
  clauses.add.push(`${name(usageAttribute.dayAdmitted(usage.operation))} :one`);
  const refused = Object.entries(usage.refused).filter(([, count]) => count > 0);
  for (const [position, [operation, count]] of refused.entries()) {
    clauses.values[`:ur${position}`] = count;
    hourCount(usageAttribute.hourRefused(operation), `:ur${position}`);
    clauses.add.push(`${name(usageAttribute.dayRefused(operation))} :ur${position}`);
  }
  if (usage.newHour) {
    clauses.set.push(`${name(HOUR_ATTRIBUTE)} = :uhour`);
    clauses.values[':uhour'] = usage.hour;
    const operations = new Set([...usage.operations, usage.operation, ...Object.keys(usage.refused)]);
    for (const operation of operations) {
      if (operation !== usage.operation) clauses.remove.push(name(usageAttribute.hourAdmitted(operation)));
      if (!(usage.refused[operation]! > 0)) clauses.remove.push(name(usageAttribute.hourRefused(operation)));
    }
  }
  return clauses;
}

/** An update expression of SET, REMOVE and ADD clauses, each present when it has any. */
export function updateExpression({ set, add, remove }: Pick<UsageClauses, 'set' | 'add' | 'remove'>): string {
  return [
    set.length > 0 ? `SET ${set.join(', ')}` : '',
    remove.length > 0 ? `REMOVE ${remove.join(', ')}` : '',
    add.length > 0 ? `ADD ${add.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** The finished hour an item held before a write moved it to `hour`, if it had counts. */
export function finishedHourOf(
  old: Record<string, unknown> | undefined,
  hour: number,
): HourUsage | undefined {
  const finished = old?.[HOUR_ATTRIBUTE];
  if (!old || typeof finished !== 'number' || finished >= hour) return undefined;
  const counts = hourCountsOf(old);
  if (Object.keys(counts.admitted).length + Object.keys(counts.refused).length === 0) return undefined;
  return { hour: finished, counts };
}

/** Refusals of an hour the counter is not in: `r<HH>_<operation>`, kept on the day counter. */
export function refusedAtHourAttribute(hour: number, operation: string): string {
  return `r${new Date(hour * HOUR_MS).toISOString().slice(11, 13)}_${operation}`;
}
