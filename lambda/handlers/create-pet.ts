import { composeCreatePet } from '../composition/api';
import { now } from '../shared/clock';
import {
  idempotencyRepositoryFromEnv,
  petRepositoryFromEnv,
  rateLimitStoreFromEnv,
} from '../store/from-environment';

/** The createPet function: its tables from the stack's environment. */
export const handler = composeCreatePet({
  pets: petRepositoryFromEnv(now),
  idempotencyKeys: idempotencyRepositoryFromEnv(),
  counters: rateLimitStoreFromEnv(),
  clock: now,
});
