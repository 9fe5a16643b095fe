import { RateLimiter } from '../domain/rate-limiter';
import { listPets } from '../operations/list-pets';
import { now } from '../shared/clock';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { petRepositoryFromEnv, rateLimitStoreFromEnv } from '../store/from-environment';

/** The listPets function: builds its store, limiter, clock and cursor key from the stack's environment. */
export const handler = listPets({
  pets: petRepositoryFromEnv(now),
  limiter: new RateLimiter(rateLimitStoreFromEnv(), now),
  clock: now,
  cursorKey: requireEnv(RUNTIME_ENV.cursorKey),
});
