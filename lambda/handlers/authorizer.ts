import { MAX_API_KEY_CACHE_SECONDS } from '../api/limits';
import { authorizer } from '../operations/authorizer';
import { now } from '../shared/clock';
import { optionalEnv, RUNTIME_ENV } from '../shared/runtime-env';
import { cachedLookup } from '../store/cached-lookup';
import { apiKeyRepositoryFromEnv, projectRepositoryFromEnv } from '../store/from-environment';

const keys = apiKeyRepositoryFromEnv();
const projects = projectRepositoryFromEnv();
const cacheSeconds = Math.min(
  Number(optionalEnv(RUNTIME_ENV.apiKeyCacheSeconds) ?? 30),
  MAX_API_KEY_CACHE_SECONDS,
);

/** The authorizer function: builds its cached lookups and address settings from the stack's environment. */
export const handler = authorizer({
  findKey: cachedLookup((keyId: string) => keys.get(keyId), cacheSeconds, now),
  findProject: cachedLookup((name: string) => projects.get(name), cacheSeconds, now),
  platformDomain: optionalEnv(RUNTIME_ENV.platformDomain),
  anonymousUsageId: optionalEnv(RUNTIME_ENV.anonymousUsageId),
});
