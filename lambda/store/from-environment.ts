import { optionalEnv, RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { ApiKeyRepository } from './api-key-repository';
import { documentClient } from './dynamodb-client';
import { PetRepository } from './pet-repository';
import { ProjectRepository } from './project-repository';
import { RateLimitStore } from './rate-limit-store';

/**
 * The store modules of a Lambda function, configured from the environment the stack sets
 * (RUNTIME_ENV). Only the functions' composition places (lambda/handlers/) call these.
 */

export function petRepositoryFromEnv(clock: () => number): PetRepository {
  return new PetRepository(documentClient(), requireEnv(RUNTIME_ENV.petsTable), {
    statusIndex: optionalEnv(RUNTIME_ENV.petsStatusIndex) !== 'false',
    clock,
  });
}

export function apiKeyRepositoryFromEnv(): ApiKeyRepository {
  return new ApiKeyRepository(documentClient(), requireEnv(RUNTIME_ENV.apiKeysTable));
}

export function projectRepositoryFromEnv(): ProjectRepository {
  return new ProjectRepository(documentClient(), requireEnv(RUNTIME_ENV.projectsTable));
}

export function rateLimitStoreFromEnv(): RateLimitStore {
  return new RateLimitStore(documentClient(), requireEnv(RUNTIME_ENV.rateLimitsTable));
}
