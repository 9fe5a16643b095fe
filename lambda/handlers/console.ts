import { CustomDomains } from '../domain/custom-domains';
import { RateLimiter } from '../domain/rate-limiter';
import { consoleApi } from '../operations/console';
import { now } from '../shared/clock';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { resolverLookup } from '../store/dns-resolver';
import { cloudFrontEdgeTenantsFromEnv } from '../store/cloudfront-from-environment';
import {
  customDomainRepositoryFromEnv,
  projectRepositoryFromEnv,
  rateLimitStoreFromEnv,
} from '../store/from-environment';

/**
 * The console function (`/console/api/…`): the domains service over the custom domains table,
 * CloudFront's tenants and the system's DNS resolver, built from the stack's environment.
 */
export const handler = consoleApi({
  projects: projectRepositoryFromEnv(),
  limiter: new RateLimiter(rateLimitStoreFromEnv(), now),
  domains: new CustomDomains({
    store: customDomainRepositoryFromEnv(),
    edge: cloudFrontEdgeTenantsFromEnv(),
    dns: resolverLookup(),
    clock: now,
    target: requireEnv(RUNTIME_ENV.domainsTarget),
    platformDomain: requireEnv(RUNTIME_ENV.platformDomain),
  }),
});
