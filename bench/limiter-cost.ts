import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { USAGE_OPERATIONS } from '../lambda/api/routes';
import { PLANS } from '../lambda/core/plans';
import type { CounterState } from '../lambda/core/rate-limit';
import { type CounterStore, keySubject, RateLimiter } from '../lambda/core/rate-limiter';
import type { UsageWriter } from '../lambda/core/usage-counting';
import { RateLimitStore } from '../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { figure, type Figure } from './figures';
import { dynamoItemBytes, writeUnitsOf } from './item-size';

/**
 * Counts what the limiter asks of DynamoDB. Every update is one write unit whether
 * its condition holds or not (DynamoDB charges a failed conditional write too; a
 * counter item is far below 1 KB), and every read is one strongly consistent read
 * unit (far below 4 KB).
 */
class CountingStore implements CounterStore, UsageWriter {
  writes = 0;
  reads = 0;

  constructor(private readonly store: RateLimitStore) {}

  recordHour(...args: Parameters<UsageWriter['recordHour']>) {
    this.writes += 1;
    return this.store.recordHour(...args);
  }

  addRefused(...args: Parameters<UsageWriter['addRefused']>) {
    this.writes += 1;
    return this.store.addRefused(...args);
  }

  countInSameMinute(...args: Parameters<CounterStore['countInSameMinute']>) {
    this.writes += 1;
    return this.store.countInSameMinute(...args);
  }

  countInNewMinute(...args: Parameters<CounterStore['countInNewMinute']>) {
    this.writes += 1;
    return this.store.countInNewMinute(...args);
  }

  read(counterId: string, subject?: string): Promise<CounterState | undefined> {
    this.reads += 1;
    return this.store.read(counterId, subject);
  }

  ban(...args: Parameters<CounterStore['ban']>) {
    this.writes += 1;
    return this.store.ban(...args);
  }
}

export interface LimiterCost {
  readonly figures: Figure[];
  /** Mean units per admitted and per refused request (the cost model's inputs). */
  readonly admitted: { count: number; writes: number; reads: number };
  readonly refused: { count: number; writes: number; reads: number };
}

/**
 * A Free project (60 a minute) sends `perSecond` requests a second for a minute and
 * a second, spread over `instances` Lambda instances (limiters with their own
 * memory over one counters table), starting a second before a UTC minute begins.
 * Each request's writes and reads are counted while it is admitted or refused.
 */
export async function measureLimiterCost(
  documents: DynamoDBDocumentClient,
  {
    instances = 3,
    perSecond = 3,
    seconds = 61,
    // A second before a minute that does not start an hour (the hour's one extra write is measured apart).
    startMs = (Math.ceil(Date.now() / 3_600_000) + 1) * 3_600_000 + 30 * 60_000 - 1_000,
    label = '',
  } = {},
): Promise<LimiterCost> {
  let nowMs = startMs;
  const counting = new CountingStore(new RateLimitStore(documents, LOCAL_TABLE_NAMES.rateLimits));
  // Counting usage by operation (issue 29), as the composed service's limiter does.
  const usage = { operations: USAGE_OPERATIONS, writer: counting };
  const limiters = Array.from({ length: instances }, () => new RateLimiter(counting, () => nowMs, usage));
  // Counted per project, as the rate-limit middleware does, each request calling getPet.
  const project = `bench-${Date.now().toString(36)}${label}`;
  const identity = `project:${project}`;
  const tally = { admitted: { count: 0, writes: 0, reads: 0 }, refused: { count: 0, writes: 0, reads: 0 } };
  let maxAdmitted = 0;
  let maxRefused = 0;
  for (let index = 0; index < perSecond * seconds; index++) {
    nowMs += 1000 / perSecond;
    const writes = counting.writes;
    const reads = counting.reads;
    const limiter = limiters[index % instances] as RateLimiter;
    const { admitted } = await limiter.admit(identity, PLANS.free.limits, keySubject('bench'), 'getPet');
    const spent = { writes: counting.writes - writes, reads: counting.reads - reads };
    const into = admitted ? tally.admitted : tally.refused;
    into.count += 1;
    into.writes += spent.writes;
    into.reads += spent.reads;
    if (admitted) maxAdmitted = Math.max(maxAdmitted, spent.writes);
    else maxRefused = Math.max(maxRefused, spent.writes);
  }
  const per = (part: { count: number; writes: number; reads: number }) => ({
    count: part.count,
    writes: part.count ? part.writes / part.count : 0,
    reads: part.count ? part.reads / part.count : 0,
  });
  const admitted = per(tally.admitted);
  const refused = per(tally.refused);
  const scenario = `Free project, ${perSecond}/s for ${seconds} s over ${instances} instances`;
  const { Item: dayItem = {} } = await documents.send(
    new GetCommand({
      TableName: LOCAL_TABLE_NAMES.rateLimits,
      Key: { counterId: `${identity}#${new Date(startMs).toISOString().slice(0, 10)}` },
    }),
  );
  const measuredBytes = dynamoItemBytes(dayItem);
  const fullestBytes = dynamoItemBytes(fullestDayItem(0));
  const banBytes = dynamoItemBytes(fullestDayItem(1)) - fullestBytes;
  const bansThatFit = Math.floor((1024 - fullestBytes) / banBytes);
  return {
    admitted,
    refused,
    figures: [
      figure({
        name: 'limiter.writesPerAdmitted.max',
        description: `most write units of one admitted request (${scenario})`,
        value: maxAdmitted,
        unit: 'WRU',
        target: { of: 'value', op: '<=', limit: 2 },
      }),
      figure({
        name: 'limiter.writesPerAdmitted.mean',
        description: `mean write units per admitted request (${tally.admitted.count} admitted)`,
        value: admitted.writes,
        unit: 'WRU',
      }),
      figure({
        name: 'limiter.writesPerRefused.max',
        description: `most write units of one refused request (${scenario})`,
        value: maxRefused,
        unit: 'WRU',
        target: { of: 'value', op: '<=', limit: 1 },
      }),
      figure({
        name: 'limiter.writesPerRefused.mean',
        description: `mean write units per refused request (${tally.refused.count} refused)`,
        value: refused.writes,
        unit: 'WRU',
      }),
      figure({
        name: 'limiter.readsPerRefused.mean',
        description: 'mean strongly consistent read units per refused request',
        value: refused.reads,
        unit: 'RRU',
      }),
      figure({
        name: 'limiter.writeUnitsPerAdmitted',
        description: `write units of one counting write: the day counter with its usage counts is ${measuredBytes} B after the run (DynamoDB's item-size rules), one unit per started KB`,
        value: writeUnitsOf(measuredBytes),
        unit: 'WCU',
        target: { of: 'value', op: '<=', limit: 1 },
      }),
      figure({
        name: 'limiter.writeUnitsPerAdmitted.fullest',
        description: `the same for the fullest usage a day counter can hold (${fullestBytes} B: a 63-character project name, every operation admitted and refused this hour and today, counts in the millions); each key banned that day adds ${banBytes} B, so ${bansThatFit} bans fit in the unit`,
        value: writeUnitsOf(fullestBytes),
        unit: 'WCU',
        target: { of: 'value', op: '<=', limit: 1 },
      }),
    ],
  };
}

/** The largest day counter of a project: what a counting write's size can grow to. */
function fullestDayItem(bans: number): Record<string, unknown> {
  const big = 4_999_999;
  const item: Record<string, unknown> = {
    counterId: `project:${'p'.repeat(63)}#2026-11-26`,
    minute: 29_412_345,
    minuteCount: 4_999,
    dayCount: big,
    expiresAt: 1_799_999_999,
    hour: 490_205,
  };
  for (const operation of USAGE_OPERATIONS) {
    for (const prefix of ['h_', 'hr_', 'd_', 'dr_']) item[`${prefix}${operation}`] = big;
  }
  for (let key = 0; key < bans; key++) {
    item[`banUntil_key:${'k'.repeat(15)}${key}`] = 1_795_000_000_000;
    item[`banCount_key:${'k'.repeat(15)}${key}`] = 4;
  }
  return item;
}

/**
 * The same traffic starting a second before a UTC hour: the hour's first write also moves the
 * finished hour to its hour item (one extra write per project-hour).
 */
export async function measureHourBoundaryCost(documents: DynamoDBDocumentClient): Promise<Figure[]> {
  const startMs = (Math.ceil(Date.now() / 3_600_000) + 2) * 3_600_000 - 1_000;
  const cost = await measureLimiterCost(documents, { startMs, label: '-hour' });
  const admittedMax = cost.figures.find((one) => one.name === 'limiter.writesPerAdmitted.max');
  return [
    figure({
      name: 'limiter.hourBoundary.writesPerAdmitted.max',
      description:
        'most write units of one admitted request when the traffic crosses a UTC hour (the hour move included)',
      value: admittedMax?.value ?? Number.NaN,
      unit: 'WRU',
      target: { of: 'value', op: '<=', limit: 2 },
    }),
    figure({
      name: 'limiter.hourBoundary.writesPerAdmitted.mean',
      description: `mean write units per admitted request across a UTC hour (${cost.admitted.count} admitted; the hour move is one write per project-hour)`,
      value: cost.admitted.writes,
      unit: 'WRU',
    }),
  ];
}
