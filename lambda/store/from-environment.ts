import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { optionalEnv, RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { ApiKeyRepository } from './api-key-repository';
import { CloudFrontEdgeTenants } from './cloudfront-edge-tenants';
import { CustomDomainRepository } from './custom-domain-repository';
import { documentClient } from './dynamodb-client';
import { IdempotencyRepository } from './idempotency-repository';
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

export function idempotencyRepositoryFromEnv(): IdempotencyRepository {
  return new IdempotencyRepository(documentClient(), requireEnv(RUNTIME_ENV.idempotencyTable));
}

export function customDomainRepositoryFromEnv(): CustomDomainRepository {
  return new CustomDomainRepository(documentClient(), requireEnv(RUNTIME_ENV.customDomainsTable));
}

/**
 * CloudFront's control plane, bounded so a slow answer fails inside the console function's
 * timeout: at most 2 attempts of 1 s to connect and 5 s to answer per call (a verification
 * makes up to four calls in series).
 */
const CLOUDFRONT_CLIENT = {
  maxAttempts: 2,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
};

export function cloudFrontEdgeTenantsFromEnv(): CloudFrontEdgeTenants {
  return new CloudFrontEdgeTenants({
    // CloudFront's endpoint is global (signed for us-east-1) whatever the function's region.
    client: new CloudFrontClient(CLOUDFRONT_CLIENT),
    distributionId: requireEnv(RUNTIME_ENV.edgeDistributionId),
    connectionGroupId: requireEnv(RUNTIME_ENV.edgeConnectionGroupId),
  });
}
