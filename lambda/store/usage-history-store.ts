import type { UsageReader } from '../core/usage-history';
import { RateLimitStore } from './rate-limit-store';
import { readProjectUsage } from './usage-items';

/**
 * The rate-limit table as the console reads it: the counters, and a project's usage history in
 * one BatchGetItem. Apart from RateLimitStore so that the API's functions, which only count, do
 * not bundle the reading (the bench's `bundle.*` figures).
 */
export class UsageHistoryStore extends RateLimitStore implements UsageReader {
  readUsage(project: string, days: readonly string[], hours: readonly number[]) {
    return readProjectUsage(this.client, this.tableName, project, days, hours);
  }
}
