import { createHash } from 'node:crypto';
import {
  type CloudFrontClient,
  type Customizations,
  type DistributionTenant,
  GetDistributionTenantByDomainCommand,
  GetDistributionTenantCommand,
  type ManagedCertificateRequest,
  type Parameter,
  UpdateDistributionTenantCommand,
} from '@aws-sdk/client-cloudfront';
import { EdgeFailure } from '../core/custom-domains/edge-tenants';
import { named } from './cloudfront-failures';

/**
 * The tenants of the platform's distribution as CloudFront keeps them: found by domain or id
 * (another distribution's tenant is never found, so never changed), and changed whole with
 * If-Match their ETag, retried when another change made it stale. What a tenant means for the
 * service (routes, certificates, conflicts) is cloudfront-edge-tenants.ts's.
 */

export const normalize = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** CloudFront's rule for a tenant's name (CreateDistributionTenant `Name`). */
const TENANT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-.]{1,126}[a-zA-Z0-9]$/;

/**
 * The tenant's name: the domain itself when CloudFront's name rule allows it (ASCII domain
 * names of 3 to 128 characters do), else its first characters and a hash, unique all the same.
 */
export function tenantNameOf(domain: string): string {
  if (TENANT_NAME.test(domain)) return domain;
  const hash = createHash('sha256').update(domain).digest('hex').slice(0, 16);
  const head = domain.replace(/[^a-zA-Z0-9-.]/g, '-').slice(0, 128 - hash.length - 1);
  return `${/^[a-zA-Z0-9]/.test(head) ? head : `t${head.slice(1)}`}-${hash}`;
}

/** A tenant of the platform's distribution, with the ETag its next change must name. */
export interface Found {
  readonly tenant: DistributionTenant & { Id: string };
  readonly etag: string;
}

/**
 * The full desired state of a tenant (UpdateDistributionTenant is sent whole, never as a patch):
 * a new managed certificate request, or the ARN of a certificate of one's own, replaces the
 * tenant's certificate; neither keeps the one it has.
 */
export type Change = (current: Found['tenant']) => {
  readonly parameters: Parameter[];
  readonly enabled: boolean;
  readonly certificate?: ManagedCertificateRequest;
  readonly certificateArn?: string;
};

/** The tenant's own certificate (an imported domain's), if it serves with one. */
export const ownCertificateArn = (tenant: DistributionTenant): string | undefined =>
  tenant.Customizations?.Certificate?.Arn || undefined;

/** The tenant's customizations after a change of certificate (undefined: none at all). */
function customizationsAfter(
  current: Customizations | undefined,
  { certificate, certificateArn }: { certificate?: ManagedCertificateRequest; certificateArn?: string },
): Customizations | undefined {
  if (!certificate && !certificateArn) return current;
  const next: Customizations = { ...current };
  delete next.Certificate;
  if (certificateArn) next.Certificate = { Arn: certificateArn };
  return Object.keys(next).length > 0 ? next : undefined;
}

/** The domain a tenant serves (its first; a tenant of the platform serves one). */
export function domainOf(found: Found): string {
  return normalize(found.tenant.Domains?.[0]?.Domain ?? found.tenant.Name ?? '');
}

export interface DistributionTenantRecordsOptions {
  readonly client: CloudFrontClient;
  readonly distributionId: string;
  readonly connectionGroupId: string;
  /** Attempts of a change whose ETag went stale. */
  readonly attempts: number;
}

export class DistributionTenantRecords {
  constructor(private readonly options: DistributionTenantRecordsOptions) {}

  /** The domain's tenant when it belongs to the platform's distribution (another one's is never touched). */
  byDomain(domain: string): Promise<Found | undefined> {
    return this.read(new GetDistributionTenantByDomainCommand({ Domain: domain }));
  }

  byId(id: string): Promise<Found | undefined> {
    return this.read(new GetDistributionTenantCommand({ Identifier: id }));
  }

  /** A tenant read by either Get command: undefined when CloudFront has none, or it is another distribution's. */
  private async read(
    command: GetDistributionTenantByDomainCommand | GetDistributionTenantCommand,
  ): Promise<Found | undefined> {
    try {
      // Both commands answer with the tenant and its ETag.
      const { DistributionTenant, ETag } = await this.options.client.send(
        command as GetDistributionTenantCommand,
      );
      return this.found(DistributionTenant, ETag);
    } catch (error) {
      if (named(error, 'EntityNotFound')) return undefined;
      throw error;
    }
  }

  private found(tenant: DistributionTenant | undefined, etag: string | undefined): Found | undefined {
    if (!tenant?.Id || !etag || tenant.DistributionId !== this.options.distributionId) return undefined;
    return { tenant: { ...tenant, Id: tenant.Id }, etag };
  }

  /**
   * Sends the tenant's whole desired state with If-Match its ETag. When another change made
   * the ETag stale (PreconditionFailed), reads the tenant again and retries, a bounded
   * number of times. Returns the tenant as changed, with its new ETag.
   */
  async update(found: Found, change: Change): Promise<Found> {
    let current = found;
    for (let attempt = 1; ; attempt += 1) {
      const { parameters, enabled, certificate, certificateArn } = change(current.tenant);
      const customizations = customizationsAfter(current.tenant.Customizations, {
        ...(certificate ? { certificate } : {}),
        ...(certificateArn ? { certificateArn } : {}),
      });
      try {
        const { DistributionTenant, ETag } = await this.options.client.send(
          new UpdateDistributionTenantCommand({
            Id: current.tenant.Id,
            IfMatch: current.etag,
            DistributionId: this.options.distributionId,
            ConnectionGroupId: this.options.connectionGroupId,
            Domains: (current.tenant.Domains ?? []).map(({ Domain }) => ({ Domain })),
            Parameters: parameters,
            Enabled: enabled,
            ...(customizations ? { Customizations: customizations } : {}),
            ...(certificate ? { ManagedCertificateRequest: certificate } : {}),
          }),
        );
        return {
          tenant: { ...current.tenant, ...DistributionTenant, Id: current.tenant.Id },
          etag: ETag ?? current.etag,
        };
      } catch (error) {
        if (!named(error, 'PreconditionFailed')) throw error;
        if (attempt >= this.options.attempts) {
          throw new EdgeFailure('tenant-kept-changing', domainOf(current), { cause: error });
        }
        const fresh = await this.byId(current.tenant.Id);
        if (!fresh) throw new EdgeFailure('tenant-gone', domainOf(current));
        current = fresh;
      }
    }
  }
}
