import { optionalEnv, RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { documentClient } from './dynamodb-client';
import { PetRepository } from './pet-repository';

/** The pets repository of a function, configured from its environment. */
export function petRepositoryFromEnv(): PetRepository {
  return new PetRepository(documentClient(), requireEnv(RUNTIME_ENV.petsTable), {
    statusIndex: optionalEnv(RUNTIME_ENV.petsStatusIndex) !== 'false',
  });
}
