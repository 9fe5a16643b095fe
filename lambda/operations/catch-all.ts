import { optionsResponse } from '../api/cors';
import { unmatchedRequestError } from '../api/unmatched';
import {
  catchAllHandler,
  type ApiLambdaHandler,
  type OperationDependencies,
} from '../middleware/api-handler';

/**
 * Every request under `/v1` that no operation takes: `OPTIONS` on a known path (CORS
 * preflights, or 204 with `Allow`), else 404, or 405 with `Allow` on a known path. Wired
 * as ANY on the catch-all paths of the route table (`catchAllPaths`).
 */
export function catchAll(stack: Pick<OperationDependencies, 'limiter'>): ApiLambdaHandler {
  return catchAllHandler(async (event) => {
    if (event.httpMethod === 'OPTIONS') return optionsResponse(event);
    throw unmatchedRequestError(event.resource);
  }, stack);
}
