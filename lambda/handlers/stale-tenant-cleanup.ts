import { composeStaleTenantCleanup } from '../composition/stale-tenant-cleanup';
import { cloudFrontEdgeTenantsFromEnv } from '../store/cloudfront-from-environment';
import { customDomainRepositoryFromEnv } from '../store/from-environment';

/**
 * The stale-tenant cleanup, run on a schedule (lib/constructs/stale-tenant-cleanup.ts): the
 * edge's tenants and the custom domains table, from the stack's environment.
 */
export const handler = composeStaleTenantCleanup({
  edgeTenants: cloudFrontEdgeTenantsFromEnv(),
  customDomains: customDomainRepositoryFromEnv(),
});
