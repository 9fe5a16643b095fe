import { RateLimiter } from '../domain/rate-limiter';
import { getOpenApi } from '../operations/get-openapi';
import { now } from '../shared/clock';
import { rateLimitStoreFromEnv } from '../store/from-environment';

/** The getOpenApi function: builds its limiter and clock from the stack's environment. */
export const handler = getOpenApi({ limiter: new RateLimiter(rateLimitStoreFromEnv(), now), clock: now });
