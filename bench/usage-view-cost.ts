import { PLANS } from '../lambda/core/plans';
import { HISTORY_DAYS, HISTORY_HOURS, usageHistory } from '../lambda/core/usage-history';
import { USAGE_OPERATIONS } from '../lambda/api/routes';
import { UsageHistoryStore } from '../lambda/store/usage-history-store';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { meteredClient } from './capacity';
import { figure, type Figure } from './figures';
import { PRICES } from './prices';

/**
 * What one view of a project's usage history costs (issue 29): the console function's
 * requests to the store, counted on the embedded store, and their read units. BatchGetItem
 * bills each key as its own eventually consistent read: half a unit per item up to 4 KB (a
 * counter is far smaller), a key that finds nothing included.
 */
export async function measureUsageViewCost(endpoint: string, project: string): Promise<Figure[]> {
  const metered = meteredClient(endpoint);
  try {
    const reader = new UsageHistoryStore(metered.documents, LOCAL_TABLE_NAMES.rateLimits);
    await usageHistory(project, PLANS.free.limits, reader, Date.now(), { operations: USAGE_OPERATIONS });
    const { calls } = metered.take();
    const readUnits = (HISTORY_DAYS + HISTORY_HOURS) * 0.5;
    return [
      figure({
        name: 'usageView.readRequests',
        description: `store requests of one usage history view (${HISTORY_DAYS} days and ${HISTORY_HOURS} hours)`,
        value: calls,
        unit: 'requests',
        target: { of: 'value', op: '<=', limit: 2 },
      }),
      figure({
        name: 'usageView.readUnits',
        description: `read units of one view: ${HISTORY_DAYS + HISTORY_HOURS} keys in one BatchGetItem, half a unit each`,
        value: readUnits,
        unit: 'RRU',
      }),
      figure({
        name: 'usageView.costPerMillionViews',
        description:
          'DynamoDB cost of a million usage views (on-demand reads; the console request itself is priced with the console)',
        value: readUnits * PRICES.dynamodbReadPerMillion,
        unit: 'USD',
      }),
    ];
  } finally {
    metered.close();
  }
}
