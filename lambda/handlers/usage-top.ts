import { writeDailyUsageTop } from '../core/usage-top';
import { now } from '../shared/clock';
import { usageTopStoreFromEnv } from '../store/usage-top-store';

/**
 * The daily ranking of the busiest projects (issue 29), run on a schedule
 * (lib/constructs/usage-top-job.ts): the last finished UTC day's `top` item, from every
 * project's day counter. One JSON line says what it wrote; a failure fails the invocation, which
 * the schedule retries and the function's error alarm reports.
 */
const store = usageTopStoreFromEnv();

export const handler = async () => {
  const top = await writeDailyUsageTop(store, now());
  const written = { day: top.day, projectsRead: top.projectsRead, total: top.total };
  console.log(JSON.stringify({ level: 'INFO', message: 'usage top written', ...written }));
  return written;
};
