import { dailyUsageTopJob } from '../core/usage-top';
import { now } from '../shared/clock';
import { usageTopStoreFromEnv } from '../store/usage-top-store';

/**
 * The daily ranking of the busiest projects (issue 29), run on a schedule
 * (lib/constructs/usage-top-job.ts): the last finished UTC day's `top` item, from every
 * project's day counter. A failure fails the invocation, which the schedule retries and the
 * function's error alarm reports.
 */
export const handler = dailyUsageTopJob(usageTopStoreFromEnv(), now);
