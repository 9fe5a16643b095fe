import { composeGetPet } from '../composition/api';
import { now } from '../shared/clock';
import { petRepositoryFromEnv, rateLimitStoreFromEnv } from '../store/from-environment';

/** The getPet function: its tables from the stack's environment. */
export const handler = composeGetPet({
  pets: petRepositoryFromEnv(now),
  counters: rateLimitStoreFromEnv(),
  clock: now,
});
