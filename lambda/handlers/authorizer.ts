import { composeAuthorizer } from '../composition/authorizer';
import { now } from '../shared/clock';
import { optionalEnv, RUNTIME_ENV } from '../shared/runtime-env';
import {
  apiKeyRepositoryFromEnv,
  customDomainRepositoryFromEnv,
  projectRepositoryFromEnv,
} from '../store/from-environment';
import { originSecretsFromEnv } from '../store/origin-secret-source';

// The edge, where the stack says one serves this environment (the secret's replica is in this region).
const originSecrets = originSecretsFromEnv(now);

/** The authorizer function: its AWS ports and address settings from the stack's environment. */
export const handler = composeAuthorizer(
  {
    apiKeys: apiKeyRepositoryFromEnv(),
    projects: projectRepositoryFromEnv(),
    clock: now,
    ...(originSecrets ? { edge: { originSecrets, customDomains: customDomainRepositoryFromEnv() } } : {}),
  },
  {
    cacheSeconds: Number(optionalEnv(RUNTIME_ENV.apiKeyCacheSeconds) ?? 30),
    platformDomain: optionalEnv(RUNTIME_ENV.platformDomain),
    anonymousUsageId: optionalEnv(RUNTIME_ENV.anonymousUsageId),
    preflightUsageId: optionalEnv(RUNTIME_ENV.preflightUsageId),
  },
);
