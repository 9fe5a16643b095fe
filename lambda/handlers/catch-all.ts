import { RateLimiter } from '../domain/rate-limiter';
import { catchAll } from '../operations/catch-all';
import { now } from '../shared/clock';
import { rateLimitStoreFromEnv } from '../store/from-environment';

/** The catch-all function: builds its limiter from the stack's environment. */
export const handler = catchAll({ limiter: new RateLimiter(rateLimitStoreFromEnv(), now) });
