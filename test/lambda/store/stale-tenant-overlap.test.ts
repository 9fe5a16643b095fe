import {
  CloudFrontClient,
  DeleteDistributionTenantCommand,
  type DistributionTenant,
  EntityNotFound,
  GetDistributionTenantByDomainCommand,
  GetDistributionTenantCommand,
  ListDistributionTenantsCommand,
  PreconditionFailed,
  ResourceNotDisabled,
  UpdateDistributionTenantCommand,
} from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { staleTenantCleanup } from '../../../lambda/operations/stale-tenant-cleanup';
import { CloudFrontEdgeTenants } from '../../../lambda/store/cloudfront-edge-tenants';
import { CustomDomainRepository } from '../../../lambda/store/custom-domain-repository';
import { CUSTOM_DOMAINS_TABLE } from '../../../lambda/store/table-schema';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * Two runs of the stale-tenant sweep at once: what an account without reserved concurrency
 * allows (EventBridge and Lambda's event queue deliver at least once, so a run can be doubled).
 * CloudFront is a small in-memory stand-in at the SDK boundary that keeps what its API
 * reference documents: each change names the tenant's current ETag (If-Match) or fails with
 * PreconditionFailed, a tenant is deleted only once disabled (ResourceNotDisabled), and a
 * deleted one is EntityNotFound. The custom domains table is the embedded store.
 */
const cloudfront = mockClient(CloudFrontClient);
const DISTRIBUTION_ID = 'E1M2U3L4T5I6T7';
const CONNECTION_GROUP_ID = 'cg_2wjDZMmOKVKmvYm3EzWbGHPwHpd';
const TABLE = 'test-custom-domains-overlap';
const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });

/** The account's tenants as CloudFront holds them: each with its ETag, which every change renews. */
class Tenants {
  private readonly byId = new Map<string, { tenant: DistributionTenant; etag: string }>();
  private changes = 0;
  /** Every change that reached a tenant: `update <domain>` or `delete <domain>`. */
  readonly applied: string[] = [];

  add(id: string, domain: string, enabled: boolean): void {
    this.byId.set(id, {
      tenant: {
        Id: id,
        DistributionId: DISTRIBUTION_ID,
        ConnectionGroupId: CONNECTION_GROUP_ID,
        Name: domain,
        Domains: [{ Domain: domain, Status: 'active' }],
        Enabled: enabled,
        Status: 'Deployed',
      },
      etag: this.nextEtag(),
    });
  }

  domains(): string[] {
    return [...this.byId.values()].map(({ tenant }) => tenant.Domains?.[0]?.Domain ?? '');
  }

  get(id: string) {
    const found = this.byId.get(id);
    if (!found) throw new EntityNotFound({ message: 'The specified entity does not exist.', ...meta(404) });
    return { DistributionTenant: found.tenant, ETag: found.etag };
  }

  getByDomain(domain: string) {
    const id = [...this.byId.values()].find(({ tenant }) => tenant.Domains?.[0]?.Domain === domain)?.tenant
      .Id;
    return this.get(id ?? 'none');
  }

  update(id: string, ifMatch: string | undefined, enabled: boolean | undefined) {
    const found = this.current(id, ifMatch);
    found.tenant = { ...found.tenant, Enabled: enabled };
    found.etag = this.nextEtag();
    this.applied.push(`update ${found.tenant.Name}`);
    return { DistributionTenant: found.tenant, ETag: found.etag };
  }

  delete(id: string, ifMatch: string | undefined) {
    const found = this.current(id, ifMatch);
    if (found.tenant.Enabled !== false) {
      throw new ResourceNotDisabled({ message: 'The specified resource is not disabled.', ...meta(409) });
    }
    this.byId.delete(id);
    this.applied.push(`delete ${found.tenant.Name}`);
    return {};
  }

  private current(id: string, ifMatch: string | undefined) {
    const found = this.byId.get(id);
    if (!found) throw new EntityNotFound({ message: 'The specified entity does not exist.', ...meta(404) });
    if (found.etag !== ifMatch) {
      throw new PreconditionFailed({
        message: 'The If-Match version is missing or not valid.',
        ...meta(412),
      });
    }
    return found;
  }

  private nextEtag(): string {
    this.changes += 1;
    return `E${String(this.changes).padStart(13, '0')}`;
  }
}

/** Resolves once `parties` callers have arrived, so every run has read before any changes. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let release: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  return async () => {
    arrived += 1;
    if (arrived >= parties) release();
    await all;
  };
}

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
  await store.createTable(CUSTOM_DOMAINS_TABLE, TABLE);
});
afterAll(() => store.close());

it('two overlapping sweeps delete each stale tenant once, touch no kept one, and neither reports a refusal', async () => {
  const repository = new CustomDomainRepository(store.documents, TABLE);
  await repository.create({
    name: 'kept.example.com',
    project: 'acme',
    role: 'primary',
    state: 'active',
    since: '2026-06-01T12:00:00.000Z',
    addedAt: '2026-06-01T12:00:00.000Z',
    attached: true,
    certificate: 'issued',
    version: 1,
  });
  const tenants = new Tenants();
  tenants.add('dt_kept', 'kept.example.com', true);
  // A removal whose detach failed before disabling, and one that disabled but could not delete yet.
  tenants.add('dt_enabled', 'stale-enabled.example.com', true);
  tenants.add('dt_disabled', 'stale-disabled.example.com', false);

  const bothRead = new Map([
    ['stale-enabled.example.com', barrier(2)],
    ['stale-disabled.example.com', barrier(2)],
  ]);
  cloudfront
    .on(ListDistributionTenantsCommand)
    .callsFake(async () => ({
      DistributionTenantList: tenants.domains().map((Domain) => ({ Domains: [{ Domain }] })),
    }))
    .on(GetDistributionTenantByDomainCommand)
    .callsFake(async ({ Domain }: { Domain: string }) => {
      const answer = tenants.getByDomain(Domain);
      await bothRead.get(Domain)?.();
      return answer;
    })
    .on(GetDistributionTenantCommand)
    .callsFake(async ({ Identifier }: { Identifier: string }) => tenants.get(Identifier))
    .on(UpdateDistributionTenantCommand)
    .callsFake(async ({ Id, IfMatch, Enabled }: { Id: string; IfMatch?: string; Enabled?: boolean }) =>
      tenants.update(Id, IfMatch, Enabled),
    )
    .on(DeleteDistributionTenantCommand)
    .callsFake(async ({ Id, IfMatch }: { Id: string; IfMatch?: string }) => tenants.delete(Id, IfMatch));

  const run = () =>
    staleTenantCleanup({
      edge: new CloudFrontEdgeTenants({
        client: new CloudFrontClient({ region: 'us-east-1' }),
        distributionId: DISTRIBUTION_ID,
        connectionGroupId: CONNECTION_GROUP_ID,
      }),
      domains: repository,
      write: () => undefined,
    })();

  const [first, second] = await Promise.all([run(), run()]);

  const stale = ['stale-enabled.example.com', 'stale-disabled.example.com'];
  for (const sweep of [first, second]) expect(sweep).toEqual({ deleted: stale, refused: [] });
  expect(tenants.domains()).toEqual(['kept.example.com']);
  expect(tenants.applied.filter((change) => change.startsWith('delete')).sort()).toEqual(
    stale.map((domain) => `delete ${domain}`).sort(),
  );
  expect(tenants.applied.filter((change) => change.includes('kept'))).toEqual([]);
});
