/**
 * The parameters a distribution tenant of the edge distribution is given, by name: the
 * distribution defines them (lib/constructs/tenant-distribution.ts), the redirect function
 * reads one, and the domains service sets them when it creates or changes a tenant
 * (lambda/store/cloudfront-edge-tenants.ts).
 */
export const TENANT_PARAMETERS = {
  /** The project whose address is the tenant's origin, `<project>.<platform domain>`. Required. */
  project: 'project',
  /** A redirect domain's primary domain, where the redirect function sends it; absent for other domains. */
  primaryDomain: 'primaryDomain',
} as const;
