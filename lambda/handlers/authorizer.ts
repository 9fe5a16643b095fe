import { MAX_API_KEY_CACHE_SECONDS } from '../api/limits';
import { EDGE_DOMAIN_CACHE_SECONDS } from '../domain/edge-request';
import { authorizer, type EdgeTrust } from '../operations/authorizer';
import { now } from '../shared/clock';
import { optionalEnv, RUNTIME_ENV } from '../shared/runtime-env';
import { cachedLookup } from '../store/cached-lookup';
import {
  apiKeyRepositoryFromEnv,
  customDomainRepositoryFromEnv,
  projectRepositoryFromEnv,
} from '../store/from-environment';
import { originSecretsFromEnv } from '../store/origin-secret-source';

const keys = apiKeyRepositoryFromEnv();
const projects = projectRepositoryFromEnv();
const cacheSeconds = Math.min(
  Number(optionalEnv(RUNTIME_ENV.apiKeyCacheSeconds) ?? 30),
  MAX_API_KEY_CACHE_SECONDS,
);

/** The edge, where the stack says one serves this environment (the secret's replica is in this region). */
function edgeFromEnv(): EdgeTrust | undefined {
  const originSecrets = originSecretsFromEnv(now);
  if (originSecrets === undefined) return undefined;
  const domains = customDomainRepositoryFromEnv();
  return {
    originSecrets,
    findDomain: cachedLookup((name: string) => domains.get(name), EDGE_DOMAIN_CACHE_SECONDS, now),
  };
}

const edge = edgeFromEnv();

/** The authorizer function: builds its cached lookups and address settings from the stack's environment. */
export const handler = authorizer({
  findKey: cachedLookup((keyId: string) => keys.get(keyId), cacheSeconds, now),
  findProject: cachedLookup((name: string) => projects.get(name), cacheSeconds, now),
  platformDomain: optionalEnv(RUNTIME_ENV.platformDomain),
  anonymousUsageId: optionalEnv(RUNTIME_ENV.anonymousUsageId),
  preflightUsageId: optionalEnv(RUNTIME_ENV.preflightUsageId),
  ...(edge ? { edge } : {}),
});
