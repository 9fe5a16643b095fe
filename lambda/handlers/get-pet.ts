import { RateLimiter } from '../domain/rate-limiter';
import { getPet } from '../operations/get-pet';
import { now } from '../shared/clock';
import { petRepositoryFromEnv, rateLimitStoreFromEnv } from '../store/from-environment';

/** The getPet function: builds its store, limiter and clock from the stack's environment. */
export const handler = getPet({
  pets: petRepositoryFromEnv(now),
  limiter: new RateLimiter(rateLimitStoreFromEnv(), now),
  clock: now,
});
