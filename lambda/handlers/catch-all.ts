import { unmatchedRequestError } from '../api/unmatched';
import { catchAllHandler } from '../middleware/api-handler';

/**
 * Every request under `/v1` that no operation takes: 404, or 405 with `Allow` on a known
 * path. Wired as ANY on the catch-all paths of the route table (`catchAllPaths`).
 */
export const handler = catchAllHandler(async (event) => {
  throw unmatchedRequestError(event.resource);
});
