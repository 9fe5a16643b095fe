import type { ProjectOverview } from '../core/console-views';
import type { ConsoleRoute } from './console-routes';
import type { UsageHistory } from '../core/usage-history';

/**
 * The console's routes of usage: this minute and day, and the hours and days before (issue 29).
 * Declared apart from console-routes.ts, which spreads them into its one route table.
 */

/** A route's answer type for the compiler (as console-routes.ts's `answers`). */
function answers<Body>(): Body | undefined {
  return undefined;
}

export const USAGE_ROUTES = [
  {
    operationId: 'getUsage',
    method: 'GET',
    path: '/usage',
    summary:
      "The project's plan, its limits, whether it may have custom domains, and its API calls this UTC minute and day.",
    successStatus: 200,
    action: 'seeUsage',
    queryParameters: [],
    errors: [],
    answer: answers<ProjectOverview>(),
  },
  {
    operationId: 'getUsageHistory',
    method: 'GET',
    path: '/usage/history',
    summary:
      "The project's API calls per operation, admitted and refused, over the last 24 UTC hours by hour and the last 30 UTC days by day, with its plan's limits. Admitted counts are exact; refused ones lower bounds.",
    successStatus: 200,
    action: 'seeUsage',
    queryParameters: [],
    errors: [],
    answer: answers<UsageHistory>(),
  },
] as const satisfies readonly ConsoleRoute<string>[];
