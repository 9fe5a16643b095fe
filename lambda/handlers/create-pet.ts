import { RateLimiter } from '../domain/rate-limiter';
import { createPet } from '../operations/create-pet';
import { now } from '../shared/clock';
import {
  idempotencyRepositoryFromEnv,
  petRepositoryFromEnv,
  rateLimitStoreFromEnv,
} from '../store/from-environment';

/** The createPet function: builds its stores, limiter and clock from the stack's environment. */
export const handler = createPet({
  pets: petRepositoryFromEnv(now),
  idempotencyKeys: idempotencyRepositoryFromEnv(),
  limiter: new RateLimiter(rateLimitStoreFromEnv(), now),
  clock: now,
});
