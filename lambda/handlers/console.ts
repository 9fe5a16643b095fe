import { consoleApiHost } from '../api/console-routes';
import { ConsoleSessions } from '../domain/console-session';
import { CustomDomains } from '../domain/custom-domains';
import { ProjectKeys } from '../domain/project-keys';
import { RateLimiter } from '../domain/rate-limiter';
import { consoleApi } from '../operations/console';
import { now } from '../shared/clock';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { resolverLookup } from '../store/dns-resolver';
import { originSecretsFromEnv } from '../store/origin-secret-source';
import { cloudFrontEdgeTenantsFromEnv } from '../store/cloudfront-from-environment';
import {
  apiKeyRepositoryFromEnv,
  consoleSessionRepositoryFromEnv,
  customDomainRepositoryFromEnv,
  projectRepositoryFromEnv,
  rateLimitStoreFromEnv,
} from '../store/from-environment';

/**
 * The console function (`/console/api/…`): sessions, usage, keys and the domains service over
 * their tables, CloudFront's tenants and the system's DNS resolver, built from the stack's
 * environment. It answers only at `console-api.<platform domain>`, and cookie requests that change
 * state must come from CONSOLE_ORIGIN.
 */
const projects = projectRepositoryFromEnv();
const counters = rateLimitStoreFromEnv();
const platformDomain = requireEnv(RUNTIME_ENV.platformDomain);
const originSecrets = originSecretsFromEnv(now);

export const handler = consoleApi({
  projects,
  limiter: new RateLimiter(counters, now),
  sessions: new ConsoleSessions({ store: consoleSessionRepositoryFromEnv(), projects, clock: now }),
  consoleOrigins: [requireEnv(RUNTIME_ENV.consoleOrigin)],
  // The console distribution sends its API here; a project's address or custom domain is 404.
  consoleHosts: [consoleApiHost(platformDomain)],
  // Through the console's distribution, sign-ins are counted per viewer, not per edge address.
  ...(originSecrets ? { originSecrets } : {}),
  keys: new ProjectKeys({ keys: apiKeyRepositoryFromEnv(), projects, clock: () => new Date(now()) }),
  counters,
  projectAddress: (name) => `https://${name}.${platformDomain}/v1`,
  clock: now,
  domains: new CustomDomains({
    store: customDomainRepositoryFromEnv(),
    edge: cloudFrontEdgeTenantsFromEnv(),
    dns: resolverLookup(),
    clock: now,
    target: requireEnv(RUNTIME_ENV.domainsTarget),
    platformDomain,
    projects,
  }),
});
