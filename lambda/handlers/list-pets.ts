import { composeListPets } from '../composition/api';
import { now } from '../shared/clock';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { petRepositoryFromEnv, rateLimitStoreFromEnv } from '../store/from-environment';

/** The listPets function: its tables and cursor key from the stack's environment. */
export const handler = composeListPets(
  { pets: petRepositoryFromEnv(now), counters: rateLimitStoreFromEnv(), clock: now },
  { cursorKey: requireEnv(RUNTIME_ENV.cursorKey) },
);
