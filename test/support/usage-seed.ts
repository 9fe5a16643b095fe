import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dayOf, hourOf, lastDays, lastHours } from '../../lambda/core/usage-history';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { HOUR_ATTRIBUTE, hourItemId, projectDayId, usageAttribute } from '../../lambda/store/usage-items';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';

/**
 * A month of a project's usage, written into the local store's usage items as the limiter
 * leaves them (the layout of lambda/store/usage-items.ts, through its own names): what a month
 * of traffic would take hours of requests to make. For pictures and for tests of the page's
 * reading of a full history; tests of the counting send real requests.
 */

const HOUR_MS = 3_600_000;

/** An hour's admitted calls per operation: a day's curve, busiest at 14:00 UTC, the same every day. */
function hourCounts(hour: number, operations: readonly string[]): Record<string, number> {
  const ofDay = new Date(hour * HOUR_MS).getUTCHours();
  const load = 6 + Math.round(15 * (1 + Math.cos(((ofDay - 14) / 12) * Math.PI)));
  return Object.fromEntries(
    operations.map((operation, index) => [operation, Math.max(0, Math.round(load / (index + 1.5)) - index)]),
  );
}

/** A day's admitted calls per operation: weekdays busier, and every seventh day up against the limit. */
function dayCounts(dayIndex: number, operations: readonly string[], perDay: number): Record<string, number> {
  const share = dayIndex % 7 === 3 ? 1 : 0.35 + (0.4 * ((dayIndex * 37) % 11)) / 11;
  const total = Math.round(perDay * share);
  const weights = operations.map((_, index) => 1 / (index + 1.5));
  const sum = weights.reduce((all, weight) => all + weight, 0);
  const counts = weights.map((weight) => Math.floor((total * weight) / sum));
  counts[0] = (counts[0] ?? 0) + total - counts.reduce((all, value) => all + value, 0);
  return Object.fromEntries(operations.map((operation, index) => [operation, counts[index] ?? 0]));
}

/** Adds counts to an item (ADD, as the limiter does, so the minute and day counts there stay). */
async function addCounts(
  documents: ReturnType<typeof createDocumentClient>,
  counterId: string,
  counts: Record<string, number>,
  set: Record<string, number> = {},
): Promise<void> {
  const adds = Object.entries(counts).filter(([, value]) => value > 0);
  const sets = Object.entries(set);
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const clauses = { add: [] as string[], set: [] as string[] };
  [...adds, ...sets].forEach(([name, value], index) => {
    names[`#a${index}`] = name;
    values[`:v${index}`] = value;
    (index < adds.length ? clauses.add : clauses.set).push(
      index < adds.length ? `#a${index} :v${index}` : `#a${index} = :v${index}`,
    );
  });
  if (clauses.add.length + clauses.set.length === 0) return;
  await documents.send(
    new UpdateCommand({
      TableName: LOCAL_TABLE_NAMES.rateLimits,
      Key: { counterId },
      UpdateExpression: [
        clauses.set.length ? `SET ${clauses.set.join(', ')}` : '',
        clauses.add.length ? `ADD ${clauses.add.join(', ')}` : '',
      ].join(' '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

const prefixed = (counts: Record<string, number>, name: (operation: string) => string) =>
  Object.fromEntries(Object.entries(counts).map(([operation, value]) => [name(operation), value]));

/**
 * Writes `project`'s last 30 days and 24 hours up to `nowMs`: every finished hour of the last
 * 24 on its hour item, the current hour on today's counter, and each day's totals (the days the
 * hours cover include them). Days up against the per-day limit have refused calls of the first
 * operation too.
 */
export async function seedUsage(
  endpoint: string,
  project: string,
  operations: readonly string[],
  perDay: number,
  nowMs: number,
): Promise<void> {
  const documents = createDocumentClient(endpoint);
  try {
    const [first = 'listPets'] = operations;
    const current = hourOf(nowMs);
    const hours = lastHours(nowMs, 24);
    const inHours = new Map<string, Record<string, number>>();
    for (const hour of hours) {
      const counts = hourCounts(hour, operations);
      const day = dayOf(hour * HOUR_MS);
      const counterId = projectDayId(project, day);
      const refused = hour % 5 === 0 ? { [first]: 6 } : {};
      const attributes = {
        ...prefixed(counts, usageAttribute.hourAdmitted),
        ...prefixed(refused, usageAttribute.hourRefused),
      };
      if (hour === current) await addCounts(documents, counterId, attributes, { [HOUR_ATTRIBUTE]: hour });
      else await addCounts(documents, hourItemId(counterId, hour), attributes, { [HOUR_ATTRIBUTE]: hour });
      const sum = inHours.get(day) ?? {};
      for (const [operation, value] of Object.entries(counts)) sum[operation] = (sum[operation] ?? 0) + value;
      if (refused[first]) sum[`refused:${first}`] = (sum[`refused:${first}`] ?? 0) + (refused[first] ?? 0);
      inHours.set(day, sum);
    }
    const days = lastDays(nowMs, 30);
    for (const [index, day] of days.entries()) {
      const counterId = projectDayId(project, day);
      const fromHours = inHours.get(day);
      const admitted = fromHours
        ? Object.fromEntries(operations.map((operation) => [operation, fromHours[operation] ?? 0]))
        : dayCounts(index, operations, perDay);
      const refused = fromHours
        ? { [first]: fromHours[`refused:${first}`] ?? 0 }
        : index % 7 === 3
          ? { [first]: 40 + index }
          : {};
      await addCounts(documents, counterId, {
        ...prefixed(admitted, usageAttribute.dayAdmitted),
        ...prefixed(refused, usageAttribute.dayRefused),
        // The limiter's own count of the day, which the overview's meter reads.
        dayCount: Object.values(admitted).reduce((all, value) => all + value, 0),
      });
    }
  } finally {
    documents.destroy();
  }
}
