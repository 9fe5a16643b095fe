import type { CustomDomainStore } from '../core/custom-domains/custom-domains';
import {
  type EdgeTenants,
  type StaleTenantSweep,
  sweepStaleTenants,
} from '../core/custom-domains/edge-tenants';

export interface StaleTenantCleanupDependencies {
  /** The edge's tenants: listed, and deleted when their domain has no record. */
  readonly edge: Pick<EdgeTenants, 'tenants' | 'detach'>;
  /** The custom domains: a tenant whose domain has a record is never touched. */
  readonly domains: Pick<CustomDomainStore, 'get'>;
  /**
   * Where the sweep's outcome goes, one JSON line (Lambda's runtime writes it to the function's
   * log group; no logger, so the bundle stays small).
   * @default console.log for a clean sweep, console.warn when a deletion was refused
   */
  readonly write?: (level: 'INFO' | 'WARN', line: string) => void;
}

const defaultWrite = (level: 'INFO' | 'WARN', line: string) =>
  level === 'WARN' ? console.warn(line) : console.log(line);

/**
 * The scheduled stale-tenant cleanup: deletes the tenants a removal could not delete at once
 * (CloudFront refuses until the disabled tenant has propagated). A refused deletion is logged
 * and left for the next run; only a failure to list the tenants or read the table fails the
 * invocation (the function's error alarm then fires).
 */
export function staleTenantCleanup({
  edge,
  domains,
  write = defaultWrite,
}: StaleTenantCleanupDependencies): () => Promise<StaleTenantSweep> {
  return async () => {
    const sweep = await sweepStaleTenants(edge, async (name) => (await domains.get(name)) !== undefined);
    write(
      sweep.refused.length > 0 ? 'WARN' : 'INFO',
      JSON.stringify({
        level: sweep.refused.length > 0 ? 'WARN' : 'INFO',
        message: 'stale tenants swept',
        deleted: sweep.deleted,
        refused: sweep.refused,
      }),
    );
    return sweep;
  };
}
