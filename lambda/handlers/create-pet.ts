import { RateLimiter } from '../domain/rate-limiter';
import { createPet } from '../operations/create-pet';
import { now } from '../shared/clock';
import { petRepositoryFromEnv, rateLimitStoreFromEnv } from '../store/from-environment';

/** The createPet function: builds its store, limiter and clock from the stack's environment. */
export const handler = createPet({
  pets: petRepositoryFromEnv(now),
  limiter: new RateLimiter(rateLimitStoreFromEnv(), now),
  clock: now,
});
