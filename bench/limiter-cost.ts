import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PLANS } from '../lambda/core/plans';
import type { CounterState } from '../lambda/core/rate-limit';
import { type CounterStore, RateLimiter } from '../lambda/core/rate-limiter';
import { RateLimitStore } from '../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { figure, type Figure } from './figures';

/**
 * Counts what the limiter asks of DynamoDB. Every update is one write unit whether
 * its condition holds or not (DynamoDB charges a failed conditional write too; a
 * counter item is far below 1 KB), and every read is one strongly consistent read
 * unit (far below 4 KB).
 */
class CountingStore implements CounterStore {
  writes = 0;
  reads = 0;

  constructor(private readonly store: CounterStore) {}

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
  { instances = 3, perSecond = 3, seconds = 61 } = {},
): Promise<LimiterCost> {
  let nowMs = Math.ceil(Date.now() / 60_000 + 1) * 60_000 - 1_000;
  const counting = new CountingStore(new RateLimitStore(documents, LOCAL_TABLE_NAMES.rateLimits));
  const limiters = Array.from({ length: instances }, () => new RateLimiter(counting, () => nowMs));
  // Counted per project, as the rate-limit middleware does.
  const identity = `project:bench-${Date.now().toString(36)}`;
  const tally = { admitted: { count: 0, writes: 0, reads: 0 }, refused: { count: 0, writes: 0, reads: 0 } };
  let maxAdmitted = 0;
  let maxRefused = 0;
  for (let index = 0; index < perSecond * seconds; index++) {
    nowMs += 1000 / perSecond;
    const writes = counting.writes;
    const reads = counting.reads;
    const limiter = limiters[index % instances] as RateLimiter;
    const { admitted } = await limiter.admit(identity, PLANS.free.limits);
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
    ],
  };
}
