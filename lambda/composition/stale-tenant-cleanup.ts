import { staleTenantCleanup } from '../operations/stale-tenant-cleanup';
import type { ServicePorts } from './ports';

// Apart from custom-domains.ts: the sweep's function bundles neither the domains service nor its DNS.

/** The scheduled sweep of the edge's tenants whose domain has no record. */
export function composeStaleTenantCleanup(ports: Pick<ServicePorts, 'edgeTenants' | 'customDomains'>) {
  return staleTenantCleanup({ edge: ports.edgeTenants, domains: ports.customDomains });
}
