import {
  type CloudFrontClient,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  ListDistributionTenantsCommand,
  type ManagedCertificateRequest,
  type Parameter,
  VerifyDnsConfigurationCommand,
} from '@aws-sdk/client-cloudfront';
import {
  type AttachOptions,
  type EdgeCertificate,
  type EdgeDnsCheck,
  EdgeFailure,
  type EdgeRoute,
  type EdgeTenants,
  type OwnCertificate,
} from '../core/custom-domains/edge-tenants';
import { DomainError } from '../core/errors';
import { TENANT_PARAMETERS } from '../shared/edge-tenant-parameters';
import type { AcmCertificates } from './acm-certificates';
import { edgeUnavailable, named } from './cloudfront-failures';
import {
  type Change,
  DistributionTenantRecords,
  domainOf,
  type Found,
  normalize,
  ownCertificateArn,
  tenantNameOf,
} from './distribution-tenant-records';

export { tenantNameOf };

/**
 * The domains service's edge in AWS: CloudFront SaaS Manager. Each custom domain is one
 * distribution tenant of the platform's multi-tenant distribution, in its connection group,
 * with a CloudFront-managed certificate validated over HTTP (CloudFront serves the token once
 * the domain's CNAME points at the connection group). A domain imported from the old per-domain
 * targets serves instead with a certificate of the platform's own (ACM, DNS-validated: its
 * `Customizations.Certificate`), issued before its DNS moves. A tenant is found by its domain
 * (GetDistributionTenantByDomain), so a tenant made by any path (this adapter, the migration)
 * is recognized; only tenants of the platform's distribution are ever changed.
 */

/** Attempts of a conditional change whose ETag another change made stale, before giving up. */
export const ETAG_ATTEMPTS = 3;

/** What a managed certificate's status means for the service (ManagedCertificateDetails.CertificateStatus). */
const CERTIFICATE_STATES: Readonly<Record<string, EdgeCertificate>> = {
  'pending-validation': { state: 'pending', cause: 'validation-pending', validatedBy: 'http' },
  issued: { state: 'issued' },
  'validation-timed-out': { state: 'timed-out', cause: 'validation-timed-out', validatedBy: 'http' },
  failed: { state: 'failed', cause: 'authority-refused', validatedBy: 'http' },
  revoked: { state: 'failed', cause: 'revoked', validatedBy: 'http' },
  expired: { state: 'failed', cause: 'expired', validatedBy: 'http' },
  inactive: { state: 'failed', cause: 'inactive', validatedBy: 'http' },
};

/** The tenant parameters of a route, by the names the distribution defines. */
export function tenantParameters(route: EdgeRoute): Parameter[] {
  return [
    { Name: TENANT_PARAMETERS.project, Value: route.project },
    ...(route.role === 'redirect' ? [{ Name: TENANT_PARAMETERS.primaryDomain, Value: route.primary }] : []),
  ];
}

const sameName = (a: string | undefined, b: string) => a?.toLowerCase().replace(/\.$/, '') === b;

export interface CloudFrontEdgeTenantsOptions {
  readonly client: CloudFrontClient;
  /** The multi-tenant distribution (EDGE_PARAMETERS.distributionId of the edge stack). */
  readonly distributionId: string;
  /** The connection group behind `{platform_cname_target}` (EDGE_PARAMETERS.connectionGroupId). */
  readonly connectionGroupId: string;
  /** Attempts of a change whose ETag went stale. @default {@link ETAG_ATTEMPTS} */
  readonly etagAttempts?: number;
  /** ACM in us-east-1: the certificates of one's own of imported domains. @default none: they are refused */
  readonly certificates?: Pick<AcmCertificates, 'request' | 'describe'>;
}

export class CloudFrontEdgeTenants implements EdgeTenants {
  private readonly attempts: number;

  private readonly records: DistributionTenantRecords;

  constructor(private readonly options: CloudFrontEdgeTenantsOptions) {
    this.attempts = options.etagAttempts ?? ETAG_ATTEMPTS;
    this.records = new DistributionTenantRecords({ ...options, attempts: this.attempts });
  }

  async attach(name: string, route: EdgeRoute, { certificateArn }: AttachOptions = {}): Promise<void> {
    const domain = normalize(name);
    await this.edge(domain, async () => {
      const found = await this.records.byDomain(domain);
      if (!found) {
        if (await this.create(domain, route, certificateArn)) return;
        // Created by a concurrent attach meanwhile: it is changed like any existing tenant.
        const raced = await this.records.byDomain(domain);
        if (!raced) throw this.takenElsewhere(domain);
        return this.attachExisting(raced, route, certificateArn);
      }
      return this.attachExisting(found, route, certificateArn);
    });
  }

  async reroute(name: string, route: EdgeRoute): Promise<void> {
    const domain = normalize(name);
    await this.edge(domain, async () => {
      const found = await this.required(domain);
      await this.records.update(found, (current) => ({
        parameters: tenantParameters(route),
        enabled: current.Enabled ?? true,
      }));
    });
  }

  async certificate(name: string): Promise<EdgeCertificate> {
    const domain = normalize(name);
    return this.edge(domain, async () => {
      const found = await this.records.byDomain(domain);
      return found ? this.certificateOf(found.tenant) : { state: 'none' };
    });
  }

  async requestOwnCertificate(name: string, replacing?: string): Promise<OwnCertificate> {
    const domain = normalize(name);
    return this.edge(domain, () => this.acm().request(domain, replacing));
  }

  async ownCertificate(arn: string): Promise<OwnCertificate> {
    return this.edge(undefined, () => this.acm().describe(arn));
  }

  async renewCertificate(name: string): Promise<void> {
    const domain = normalize(name);
    await this.edge(domain, async () => {
      const found = await this.required(domain);
      await this.records.update(found, (current) => ({
        parameters: current.Parameters ?? [],
        enabled: current.Enabled ?? true,
        certificate: this.certificateRequest(domain),
      }));
    });
  }

  /**
   * CloudFront's own check that the domain reaches the connection group. It needs the tenant,
   * so a domain without one (the first verification) has no edge check yet; CloudFront's
   * `unknown-configuration` (it could not tell) is no verdict either.
   */
  async checkDns(name: string): Promise<EdgeDnsCheck | undefined> {
    const domain = normalize(name);
    return this.edge(domain, async () => {
      const found = await this.records.byDomain(domain);
      if (!found) return undefined;
      const { DnsConfigurationList } = await this.options.client.send(
        new VerifyDnsConfigurationCommand({ Identifier: found.tenant.Id, Domain: domain }),
      );
      const entry = DnsConfigurationList?.find((configuration) => sameName(configuration.Domain, domain));
      if (entry?.Status === 'valid-configuration') return { valid: true };
      if (entry?.Status === 'invalid-configuration') {
        return { valid: false, ...(entry.Reason ? { reason: entry.Reason } : {}) };
      }
      return undefined;
    });
  }

  /**
   * Disables the tenant, then deletes it with the ETag the disabling returned. CloudFront
   * refuses the deletion until the disabled state has propagated: the tenant is then left
   * disabled (it serves nothing) and this throws, so the service reports the removal as
   * pending and the stale-tenant sweep deletes it later.
   */
  async detach(name: string): Promise<void> {
    const domain = normalize(name);
    await this.edge(domain, async () => {
      let found = await this.records.byDomain(domain);
      if (!found) return;
      if (found.tenant.Enabled !== false) {
        const enabled = found;
        try {
          found = await this.records.update(enabled, (current) => ({
            parameters: current.Parameters ?? [],
            enabled: false,
          }));
        } catch (error) {
          // Deleted meanwhile (an overlapping sweep, another removal): none is fine.
          if (named(error, 'EntityNotFound') || !(await this.records.byId(enabled.tenant.Id))) return;
          throw error;
        }
      }
      for (let attempt = 1; ; attempt += 1) {
        try {
          await this.options.client.send(
            new DeleteDistributionTenantCommand({ Id: found.tenant.Id, IfMatch: found.etag }),
          );
          return;
        } catch (error) {
          if (named(error, 'EntityNotFound')) return;
          if (named(error, 'ResourceNotDisabled')) {
            throw new EdgeFailure('disabled-not-deleted', domain, { cause: error });
          }
          if (!named(error, 'PreconditionFailed') || attempt >= this.attempts) throw error;
          const fresh = await this.records.byId(found.tenant.Id);
          if (!fresh) return;
          found = fresh;
        }
      }
    });
  }

  /** Every domain with a tenant of the platform's distribution (the sweep deletes those without a record). */
  async tenants(): Promise<readonly string[]> {
    return this.edge(undefined, async () => {
      const domains: string[] = [];
      let marker: string | undefined;
      do {
        const page = await this.options.client.send(
          new ListDistributionTenantsCommand({
            AssociationFilter: { DistributionId: this.options.distributionId },
            ...(marker ? { Marker: marker } : {}),
          }),
        );
        for (const tenant of page.DistributionTenantList ?? []) {
          for (const { Domain } of tenant.Domains ?? []) if (Domain) domains.push(normalize(Domain));
        }
        marker = page.NextMarker || undefined;
      } while (marker);
      return domains;
    });
  }

  /** Runs a method's calls; what CloudFront fails with becomes the service's edge_unavailable. */
  private async edge<T>(domain: string | undefined, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw edgeUnavailable(domain, error);
    }
  }

  /** A managed certificate, validated over HTTP by CloudFront once the domain's CNAME reaches it. */
  private certificateRequest(domain: string): ManagedCertificateRequest {
    return { ValidationTokenHost: 'cloudfront', PrimaryDomainName: domain };
  }

  private acm(): Pick<AcmCertificates, 'request' | 'describe'> {
    if (!this.options.certificates) {
      throw new EdgeFailure('no-certificate-manager', undefined);
    }
    return this.options.certificates;
  }

  private takenElsewhere(domain: string): EdgeFailure {
    return new EdgeFailure('in-use-elsewhere', domain);
  }

  /** Creates the tenant; false when CloudFront already has one of that name or domain (a race). */
  private async create(
    domain: string,
    route: EdgeRoute,
    certificateArn: string | undefined,
  ): Promise<boolean> {
    try {
      await this.options.client.send(
        new CreateDistributionTenantCommand({
          DistributionId: this.options.distributionId,
          ConnectionGroupId: this.options.connectionGroupId,
          Name: tenantNameOf(domain),
          Domains: [{ Domain: domain }],
          Parameters: tenantParameters(route),
          ...(certificateArn
            ? { Customizations: { Certificate: { Arn: certificateArn } } }
            : { ManagedCertificateRequest: this.certificateRequest(domain) }),
          Enabled: true,
        }),
      );
      return true;
    } catch (error) {
      if (named(error, 'EntityAlreadyExists') || named(error, 'CNAMEAlreadyExists')) return false;
      throw error;
    }
  }

  /**
   * An existing tenant takes the route and is enabled. With `certificateArn` it serves with that
   * certificate; else its managed certificate is requested again only when it has none that stands.
   */
  private async attachExisting(
    found: Found,
    route: EdgeRoute,
    certificateArn: string | undefined,
  ): Promise<void> {
    let certificate: Pick<ReturnType<Change>, 'certificate' | 'certificateArn'> = {};
    if (certificateArn) {
      if (ownCertificateArn(found.tenant) !== certificateArn) certificate = { certificateArn };
    } else {
      const { state } = await this.certificateOf(found.tenant);
      const renew = state !== 'issued' && state !== 'pending';
      if (renew) certificate = { certificate: this.certificateRequest(domainOf(found)) };
    }
    await this.records.update(found, () => ({
      parameters: tenantParameters(route),
      enabled: true,
      ...certificate,
    }));
  }

  private async required(domain: string): Promise<Found> {
    const found = await this.records.byDomain(domain);
    if (!found) {
      throw new EdgeFailure('no-tenant', domain);
    }
    return found;
  }

  /** The tenant's certificate: its own (in ACM) when it names one, else its managed one. */
  private async certificateOf(tenant: Found['tenant']): Promise<EdgeCertificate> {
    const own = ownCertificateArn(tenant);
    if (own) {
      // The certificate's facts, without its ARN and validation record (not the edge's to say).
      const { state, cause, validatedBy, failureCode } = await this.acm().describe(own);
      return {
        state,
        ...(cause ? { cause } : {}),
        ...(validatedBy ? { validatedBy } : {}),
        ...(failureCode ? { failureCode } : {}),
      };
    }
    try {
      const { ManagedCertificateDetails } = await this.options.client.send(
        new GetManagedCertificateDetailsCommand({ Identifier: tenant.Id }),
      );
      const status = ManagedCertificateDetails?.CertificateStatus;
      return (status && CERTIFICATE_STATES[status]) || { state: 'none' };
    } catch (error) {
      if (named(error, 'EntityNotFound')) return { state: 'none' };
      throw error;
    }
  }
}
