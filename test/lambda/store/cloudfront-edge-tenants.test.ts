import {
  CloudFrontClient,
  CloudFrontServiceException,
  CNAMEAlreadyExists,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  type DistributionTenant,
  type DistributionTenantSummary,
  type DnsConfigurationStatus,
  EntityNotFound,
  GetDistributionTenantByDomainCommand,
  GetDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  type GetManagedCertificateDetailsResult,
  ListDistributionTenantsCommand,
  AccessDenied,
  type ManagedCertificateStatus,
  PreconditionFailed,
  ResourceNotDisabled,
  UpdateDistributionTenantCommand,
  VerifyDnsConfigurationCommand,
} from '@aws-sdk/client-cloudfront';
import { ACMClient, DescribeCertificateCommand, RequestCertificateCommand } from '@aws-sdk/client-acm';
import { mockClient } from 'aws-sdk-client-mock';
import type { CustomDomain } from '../../../lambda/core/custom-domains/custom-domain';
import { CustomDomains } from '../../../lambda/core/custom-domains/custom-domains';
import { certificateReasonWords } from '../../../lambda/core/custom-domains/lifecycle-words';
import { DomainError } from '../../../lambda/core/errors';
import { TENANT_PARAMETERS } from '../../../lambda/shared/edge-tenant-parameters';
import {
  CloudFrontEdgeTenants,
  ETAG_ATTEMPTS,
  tenantNameOf,
} from '../../../lambda/store/cloudfront-edge-tenants';
import { AcmCertificates } from '../../../lambda/store/acm-certificates';
import { CustomDomainRepository } from '../../../lambda/store/custom-domain-repository';
import { CUSTOM_DOMAINS_TABLE } from '../../../lambda/store/table-schema';
import { staleTenantCleanup } from '../../../lambda/operations/stale-tenant-cleanup';
import { STALE_TENANT_CLEANUP_ACTIONS } from '../../../lib/constructs/stale-tenant-cleanup';
import { startTestStore, type TestStore } from '../../support/embedded-store';

// CloudFront cannot run here: mocked at the SDK boundary, answering as its API reference documents.
const cloudfront = mockClient(CloudFrontClient);
const DISTRIBUTION_ID = 'E1M2U3L4T5I6T7';
const CONNECTION_GROUP_ID = 'cg_2wjDZMmOKVKmvYm3EzWbGHPwHpd';
const TENANT_ID = 'dt_2wjMUbg3NHZEQ7OfoalP5zi1AB';
const DOMAIN = 'shop.example.com';
const ETAG = 'E2QWRUHAPOMQZL';
const NEW_ETAG = 'E3UN6WX5RRO2AG';
const FRESH_ETAG = 'E1PA6795UKMFR9';

/** A tenant as GetDistributionTenant(ByDomain) returns it. */
function tenant(overrides: Partial<DistributionTenant> = {}): DistributionTenant {
  return {
    Id: TENANT_ID,
    DistributionId: DISTRIBUTION_ID,
    Name: DOMAIN,
    Arn: `arn:aws:cloudfront::123456789012:distribution-tenant/${TENANT_ID}`,
    Domains: [{ Domain: DOMAIN, Status: 'active' }],
    Parameters: [{ Name: TENANT_PARAMETERS.project, Value: 'acme' }],
    ConnectionGroupId: CONNECTION_GROUP_ID,
    CreatedTime: new Date('2026-06-01T12:00:00Z'),
    LastModifiedTime: new Date('2026-06-01T12:00:00Z'),
    Enabled: true,
    Status: 'Deployed',
    ...overrides,
  };
}

const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
const notFound = () => new EntityNotFound({ message: 'The specified entity does not exist.', ...meta(404) });
const stale = () =>
  new PreconditionFailed({ message: 'The If-Match version is missing or not valid.', ...meta(412) });
const certificate = (CertificateStatus: ManagedCertificateStatus): GetManagedCertificateDetailsResult => ({
  ManagedCertificateDetails: {
    CertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
    CertificateStatus,
    ValidationTokenHost: 'cloudfront',
    ValidationTokenDetails: [
      {
        Domain: DOMAIN,
        RedirectFrom: `http://${DOMAIN}/.well-known/pki-validation/a1b2c3.txt`,
        RedirectTo:
          'https://validation.us-east-1.acm-validations.aws/123456789012/.well-known/pki-validation/a1b2c3.txt',
      },
    ],
  },
});

/** What an operator or tenant must never read: SDK exception names, stacks. */
const DEVELOPER_NOISE = /\b\w*(Error|Exception)\b|Throttling|AccessDenied|PreconditionFailed|\n\s+at /;

const edge = () =>
  new CloudFrontEdgeTenants({
    client: new CloudFrontClient({ region: 'us-east-1' }),
    distributionId: DISTRIBUTION_ID,
    connectionGroupId: CONNECTION_GROUP_ID,
  });
const inputs = <T extends object>(command: new (input: T) => unknown) =>
  cloudfront.commandCalls(command as never).map((call) => call.args[0].input as T);

/** The domain's tenant as GetDistributionTenantByDomain answers it. */
function existing(overrides: Partial<DistributionTenant> = {}, etag = ETAG): void {
  cloudfront.on(GetDistributionTenantByDomainCommand, { Domain: DOMAIN }).resolves({
    DistributionTenant: tenant(overrides),
    ETag: etag,
  });
}

beforeEach(() => cloudfront.reset());

describe('attach: the domain gets its tenant and managed certificate', () => {
  it('creates the tenant when CloudFront has none: its distribution, connection group, project and a certificate over HTTP', async () => {
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(notFound());
    cloudfront.on(CreateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: ETAG });
    await edge().attach('Shop.Example.com.', { project: 'acme', role: 'serve' });
    expect(inputs(CreateDistributionTenantCommand)).toEqual([
      {
        DistributionId: DISTRIBUTION_ID,
        ConnectionGroupId: CONNECTION_GROUP_ID,
        Name: DOMAIN,
        Domains: [{ Domain: DOMAIN }],
        Parameters: [{ Name: 'project', Value: 'acme' }],
        ManagedCertificateRequest: { ValidationTokenHost: 'cloudfront', PrimaryDomainName: DOMAIN },
        Enabled: true,
      },
    ]);
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([]);
  });

  it("gives a redirect domain's tenant the primary domain parameter the redirect function reads", async () => {
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(notFound());
    cloudfront.on(CreateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: ETAG });
    await edge().attach(DOMAIN, { project: 'acme', role: 'redirect', primary: 'www.example.com' });
    expect(inputs(CreateDistributionTenantCommand)[0]?.Parameters).toEqual([
      { Name: 'project', Value: 'acme' },
      { Name: 'primaryDomain', Value: 'www.example.com' },
    ]);
  });

  it('updates an existing tenant with If-Match its ETag, keeping a certificate that stands', async () => {
    existing({ Enabled: false });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued'));
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    await edge().attach(DOMAIN, { project: 'acme', role: 'redirect', primary: 'www.example.com' });
    expect(inputs(CreateDistributionTenantCommand)).toEqual([]);
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([
      {
        Id: TENANT_ID,
        IfMatch: ETAG,
        DistributionId: DISTRIBUTION_ID,
        ConnectionGroupId: CONNECTION_GROUP_ID,
        Domains: [{ Domain: DOMAIN }],
        Parameters: [
          { Name: 'project', Value: 'acme' },
          { Name: 'primaryDomain', Value: 'www.example.com' },
        ],
        Enabled: true,
      },
    ]);
  });

  it('requests the certificate again when the existing tenant has none that stands', async () => {
    existing();
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('validation-timed-out'));
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    await edge().attach(DOMAIN, { project: 'acme', role: 'serve' });
    expect(inputs(UpdateDistributionTenantCommand)[0]?.ManagedCertificateRequest).toEqual({
      ValidationTokenHost: 'cloudfront',
      PrimaryDomainName: DOMAIN,
    });
  });

  it('takes the tenant a concurrent attach created meanwhile, instead of failing', async () => {
    cloudfront
      .on(GetDistributionTenantByDomainCommand)
      .rejectsOnce(notFound())
      .resolves({ DistributionTenant: tenant(), ETag: ETAG });
    cloudfront
      .on(CreateDistributionTenantCommand)
      .rejects(new CNAMEAlreadyExists({ message: 'The CNAME is in use.', ...meta(409) }));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('pending-validation'));
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    await edge().attach(DOMAIN, { project: 'acme', role: 'serve' });
    expect(inputs(UpdateDistributionTenantCommand)).toHaveLength(1);
  });

  it("refuses a name CloudFront has elsewhere (another distribution's), and never changes that tenant", async () => {
    existing({ DistributionId: 'EOTHERDISTRIB' });
    cloudfront
      .on(CreateDistributionTenantCommand)
      .rejects(new CNAMEAlreadyExists({ message: 'One or more CNAMEs are in use.', ...meta(409) }));
    const refusal = await edge()
      .attach(DOMAIN, { project: 'acme', role: 'serve' })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ kind: 'domain_taken' });
    expect((refusal as Error).message).not.toMatch(DEVELOPER_NOISE);
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([]);
  });

  it('refuses a name a standard distribution has elsewhere (no tenant of it anywhere): CNAMEAlreadyExists is domain_taken', async () => {
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(notFound());
    cloudfront.on(CreateDistributionTenantCommand).rejects(
      new CNAMEAlreadyExists({
        message: 'One or more of the CNAMEs you provided are already associated with a different resource.',
        ...meta(409),
      }),
    );
    const refusal = await edge()
      .attach(DOMAIN, { project: 'acme', role: 'serve' })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({
      kind: 'domain_taken',
      message: `${DOMAIN} is in use elsewhere (another CloudFront distribution): remove it there, then verify it here again.`,
    });
    expect(inputs(CreateDistributionTenantCommand)).toMatchObject([{ Domains: [{ Domain: DOMAIN }] }]);
  });
});

describe('reroute: a new primary or a domain made a redirect, same tenant and certificate', () => {
  it('replaces the parameters (the primary domain goes when the domain serves again)', async () => {
    existing({
      Parameters: [
        { Name: 'project', Value: 'acme' },
        { Name: 'primaryDomain', Value: 'old.example.com' },
      ],
    });
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    await edge().reroute(DOMAIN, { project: 'acme', role: 'serve' });
    const [update] = inputs(UpdateDistributionTenantCommand);
    expect(update).toMatchObject({ Id: TENANT_ID, IfMatch: ETAG, Enabled: true });
    expect(update?.Parameters).toEqual([{ Name: 'project', Value: 'acme' }]);
    expect(update?.ManagedCertificateRequest).toBeUndefined();
  });
});

describe('the certificate: pending, then issued, then timed out and requested again', () => {
  it('maps each ManagedCertificateDetails status and re-requests the timed-out one', async () => {
    existing();
    cloudfront
      .on(GetManagedCertificateDetailsCommand, { Identifier: TENANT_ID })
      .resolvesOnce(certificate('pending-validation'))
      .resolvesOnce(certificate('issued'))
      .resolvesOnce(certificate('validation-timed-out'));
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    const tenants = edge();
    expect(await tenants.certificate(DOMAIN)).toMatchObject({ state: 'pending' });
    expect(await tenants.certificate(DOMAIN)).toEqual({ state: 'issued' });
    expect(await tenants.certificate(DOMAIN)).toMatchObject({ state: 'timed-out' });
    await tenants.renewCertificate(DOMAIN);
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([
      {
        Id: TENANT_ID,
        IfMatch: ETAG,
        DistributionId: DISTRIBUTION_ID,
        ConnectionGroupId: CONNECTION_GROUP_ID,
        Domains: [{ Domain: DOMAIN }],
        Parameters: [{ Name: 'project', Value: 'acme' }],
        Enabled: true,
        ManagedCertificateRequest: { ValidationTokenHost: 'cloudfront', PrimaryDomainName: DOMAIN },
      },
    ]);
  });

  it.each<[ManagedCertificateStatus, string, string, string]>([
    ['failed', 'failed', 'authority-refused', 'the certificate authority refused the request'],
    ['revoked', 'failed', 'revoked', 'the certificate was revoked'],
    ['expired', 'failed', 'expired', 'the certificate expired'],
    ['inactive', 'failed', 'inactive', 'the certificate is inactive'],
    [
      'validation-timed-out',
      'timed-out',
      'validation-timed-out',
      'the HTTP validation did not succeed in time',
    ],
  ])('%s is %s, with the cause as a fact the core puts in words', async (status, state, cause, words) => {
    existing();
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate(status));
    const result = await edge().certificate(DOMAIN);
    expect(result).toEqual({ state, cause, validatedBy: 'http' });
    expect(certificateReasonWords(result)).toBe(words);
  });

  it('is none without a tenant, or without a managed certificate', async () => {
    cloudfront.on(GetDistributionTenantByDomainCommand).rejectsOnce(notFound());
    expect(await edge().certificate(DOMAIN)).toEqual({ state: 'none' });
    existing();
    cloudfront.on(GetManagedCertificateDetailsCommand).rejects(notFound());
    expect(await edge().certificate(DOMAIN)).toEqual({ state: 'none' });
  });
});

describe("checkDns: CloudFront's VerifyDnsConfiguration", () => {
  const verified = (Status: DnsConfigurationStatus, Reason?: string) => ({
    DnsConfigurationList: [{ Domain: DOMAIN, Status, ...(Reason ? { Reason } : {}) }],
  });

  it('valid-configuration is valid', async () => {
    existing();
    cloudfront.on(VerifyDnsConfigurationCommand).resolves(verified('valid-configuration'));
    expect(await edge().checkDns(DOMAIN)).toEqual({ valid: true });
    expect(inputs(VerifyDnsConfigurationCommand)).toEqual([{ Identifier: TENANT_ID, Domain: DOMAIN }]);
  });

  it("invalid-configuration is not, with CloudFront's reason", async () => {
    existing();
    const reason = 'The domain does not point to the routing endpoint of the connection group.';
    cloudfront.on(VerifyDnsConfigurationCommand).resolves(verified('invalid-configuration', reason));
    expect(await edge().checkDns(DOMAIN)).toEqual({ valid: false, reason });
  });

  it('unknown-configuration (CloudFront could not tell) is no verdict', async () => {
    existing();
    cloudfront
      .on(VerifyDnsConfigurationCommand)
      .resolves(verified('unknown-configuration', 'The DNS lookup timed out.'));
    expect(await edge().checkDns(DOMAIN)).toBeUndefined();
  });

  it('is no verdict before the domain has a tenant (the call needs one)', async () => {
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(notFound());
    expect(await edge().checkDns(DOMAIN)).toBeUndefined();
    expect(inputs(VerifyDnsConfigurationCommand)).toEqual([]);
  });
});

describe('ETag conflicts', () => {
  it('reads the tenant again and retries with its new ETag', async () => {
    existing();
    cloudfront
      .on(GetDistributionTenantCommand, { Identifier: TENANT_ID })
      .resolves({ DistributionTenant: tenant(), ETag: FRESH_ETAG });
    cloudfront
      .on(UpdateDistributionTenantCommand)
      .rejectsOnce(stale())
      .resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    await edge().reroute(DOMAIN, { project: 'acme', role: 'redirect', primary: 'www.example.com' });
    expect(inputs(UpdateDistributionTenantCommand).map((update) => update.IfMatch)).toEqual([
      ETAG,
      FRESH_ETAG,
    ]);
  });

  it(`gives up after ${ETAG_ATTEMPTS} attempts, as the edge being unavailable, in words`, async () => {
    existing();
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: FRESH_ETAG });
    cloudfront.on(UpdateDistributionTenantCommand).rejects(stale());
    const failure = await edge()
      .reroute(DOMAIN, { project: 'acme', role: 'serve' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DomainError);
    expect(failure).toMatchObject({ kind: 'edge_unavailable' });
    expect((failure as Error).message).not.toMatch(DEVELOPER_NOISE);
    expect(inputs(UpdateDistributionTenantCommand)).toHaveLength(ETAG_ATTEMPTS);
  });
});

describe('detach: disabled, then deleted with the ETag the disabling returned', () => {
  it('disables the tenant as it is, then deletes it', async () => {
    existing();
    cloudfront
      .on(UpdateDistributionTenantCommand)
      .resolves({ DistributionTenant: tenant({ Enabled: false, Status: 'InProgress' }), ETag: NEW_ETAG });
    cloudfront.on(DeleteDistributionTenantCommand).resolves({});
    await edge().detach(DOMAIN);
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([
      {
        Id: TENANT_ID,
        IfMatch: ETAG,
        DistributionId: DISTRIBUTION_ID,
        ConnectionGroupId: CONNECTION_GROUP_ID,
        Domains: [{ Domain: DOMAIN }],
        Parameters: [{ Name: 'project', Value: 'acme' }],
        Enabled: false,
      },
    ]);
    expect(inputs(DeleteDistributionTenantCommand)).toEqual([{ Id: TENANT_ID, IfMatch: NEW_ETAG }]);
  });

  it('leaves the tenant disabled and says so when CloudFront refuses the deletion while the disabling propagates', async () => {
    existing();
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    cloudfront
      .on(DeleteDistributionTenantCommand)
      .rejects(new ResourceNotDisabled({ message: 'The tenant is not disabled yet.', ...meta(409) }));
    const failure = await edge()
      .detach(DOMAIN)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: 'edge_unavailable' });
    expect((failure as Error).message).toMatch(/disabled/);
    expect((failure as Error).message).not.toMatch(DEVELOPER_NOISE);
  });

  it('deletes an already disabled tenant at once, and is done when there is none', async () => {
    existing({ Enabled: false });
    cloudfront.on(DeleteDistributionTenantCommand).resolves({});
    await edge().detach(DOMAIN);
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([]);
    expect(inputs(DeleteDistributionTenantCommand)).toEqual([{ Id: TENANT_ID, IfMatch: ETAG }]);
    cloudfront.reset();
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(notFound());
    await edge().detach(DOMAIN);
    expect(inputs(DeleteDistributionTenantCommand)).toEqual([]);
  });
});

describe('the cleanup of stale tenants', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await startTestStore();
    await store.createTable(CUSTOM_DOMAINS_TABLE, 'test-custom-domains-sweep');
  });
  afterAll(() => store.close());

  it("lists the edge distribution's tenants page by page, and deletes those whose domain has no record", async () => {
    const repository = new CustomDomainRepository(store.documents, 'test-custom-domains-sweep');
    const kept: CustomDomain = {
      name: 'kept.example.com',
      project: 'acme',
      role: 'primary',
      state: 'active',
      since: '2026-06-01T12:00:00.000Z',
      addedAt: '2026-06-01T12:00:00.000Z',
      attached: true,
      certificate: 'issued',
      version: 3,
    };
    await repository.create(kept);
    const summary = (Id: string, Domain: string): DistributionTenantSummary => ({
      Id,
      DistributionId: DISTRIBUTION_ID,
      Name: Domain,
      Arn: `arn:aws:cloudfront::123456789012:distribution-tenant/${Id}`,
      Domains: [{ Domain, Status: 'active' }],
      ConnectionGroupId: CONNECTION_GROUP_ID,
      CreatedTime: new Date('2026-06-01T12:00:00Z'),
      LastModifiedTime: new Date('2026-06-01T12:00:00Z'),
      ETag: ETAG,
      Enabled: true,
      Status: 'Deployed',
    });
    cloudfront
      .on(ListDistributionTenantsCommand)
      .resolvesOnce({ DistributionTenantList: [summary('dt_kept', 'kept.example.com')], NextMarker: 'next' })
      .resolvesOnce({ DistributionTenantList: [summary(TENANT_ID, 'gone.example.com')] });
    cloudfront
      .on(GetDistributionTenantByDomainCommand, { Domain: 'gone.example.com' })
      .resolves({ DistributionTenant: tenant({ Enabled: false }), ETag: ETAG });
    cloudfront.on(DeleteDistributionTenantCommand).resolves({});
    const service = new CustomDomains({
      store: repository,
      edge: edge(),
      dns: {
        cname: async () => [],
        a: async () => [],
        aaaa: async () => [],
        caa: async () => [],
        txt: async () => [],
      },
      clock: () => Date.parse('2026-06-02T12:00:00Z'),
      target: 'domains.animalstore.example',
      platformDomain: 'animalstore.example',
    });
    expect(await service.cleanUpStaleTenants()).toEqual({ deleted: ['gone.example.com'], refused: [] });
    expect(inputs(ListDistributionTenantsCommand)).toEqual([
      { AssociationFilter: { DistributionId: DISTRIBUTION_ID } },
      { AssociationFilter: { DistributionId: DISTRIBUTION_ID }, Marker: 'next' },
    ]);
    expect(inputs(DeleteDistributionTenantCommand)).toEqual([{ Id: TENANT_ID, IfMatch: ETAG }]);
  });

  it('goes on past a deletion CloudFront refuses, reports each, and calls only what its role may', async () => {
    const repository = new CustomDomainRepository(store.documents, 'test-custom-domains-sweep');
    const summary = (Id: string, Domain: string): DistributionTenantSummary => ({
      Id,
      DistributionId: DISTRIBUTION_ID,
      Name: Domain,
      Arn: `arn:aws:cloudfront::123456789012:distribution-tenant/${Id}`,
      Domains: [{ Domain, Status: 'active' }],
      CreatedTime: new Date('2026-06-01T12:00:00Z'),
      LastModifiedTime: new Date('2026-06-01T12:00:00Z'),
      ETag: ETAG,
      Enabled: true,
    });
    cloudfront.on(ListDistributionTenantsCommand).resolves({
      DistributionTenantList: [
        summary('dt_stuck', 'stuck.example.com'),
        summary('dt_also', 'also-stuck.example.com'),
        summary('dt_gone', 'gone-too.example.com'),
      ],
    });
    for (const [Id, Domain, Enabled] of [
      ['dt_stuck', 'stuck.example.com', true],
      ['dt_also', 'also-stuck.example.com', false],
      ['dt_gone', 'gone-too.example.com', false],
    ] as const) {
      cloudfront.on(GetDistributionTenantByDomainCommand, { Domain }).resolves({
        DistributionTenant: tenant({ Id, Name: Domain, Domains: [{ Domain }], Enabled }),
        ETag: ETAG,
      });
    }
    cloudfront.on(UpdateDistributionTenantCommand).resolves({
      DistributionTenant: tenant({ Id: 'dt_stuck', Enabled: false }),
      ETag: NEW_ETAG,
    });
    const notDisabled = () =>
      new ResourceNotDisabled({ message: 'The specified resource is not disabled.', ...meta(409) });
    cloudfront
      .on(DeleteDistributionTenantCommand, { Id: 'dt_stuck' })
      .rejects(notDisabled())
      .on(DeleteDistributionTenantCommand, { Id: 'dt_also' })
      .rejects(notDisabled())
      .on(DeleteDistributionTenantCommand, { Id: 'dt_gone' })
      .resolves({});
    const lines: [string, string][] = [];
    const sweep = staleTenantCleanup({
      edge: edge(),
      domains: repository,
      write: (level, line) => lines.push([level, line]),
    });

    const outcome = await sweep();

    expect(outcome).toEqual({
      deleted: ['gone-too.example.com'],
      refused: [
        { domain: 'stuck.example.com', reason: expect.stringMatching(/disabled and serves nothing/) },
        { domain: 'also-stuck.example.com', reason: expect.stringMatching(/disabled and serves nothing/) },
      ],
    });
    for (const { reason } of outcome.refused) expect(reason).not.toMatch(DEVELOPER_NOISE);
    expect(lines).toEqual([['WARN', expect.any(String)]]);
    expect(JSON.parse(lines[0]?.[1] ?? '{}')).toMatchObject({
      level: 'WARN',
      deleted: outcome.deleted,
      refused: outcome.refused,
    });
    // Every call it made is one its role is granted (lib/constructs/stale-tenant-cleanup.ts).
    const granted: string[] = [
      ...STALE_TENANT_CLEANUP_ACTIONS.tenant,
      ...STALE_TENANT_CLEANUP_ACTIONS.unscoped,
    ];
    const called = [
      ...new Set(
        cloudfront
          .calls()
          .map((call) => `cloudfront:${call.args[0].constructor.name.replace(/Command$/, '')}`),
      ),
    ];
    expect(called.filter((action) => !granted.includes(action))).toEqual([]);
    expect(called.sort()).toEqual(
      [
        'cloudfront:DeleteDistributionTenant',
        'cloudfront:GetDistributionTenantByDomain',
        'cloudfront:ListDistributionTenants',
        'cloudfront:UpdateDistributionTenant',
      ].sort(),
    );
  });
});

describe('failures of CloudFront itself are the edge being unavailable, never SDK names', () => {
  it.each([
    [
      'throttling',
      new CloudFrontServiceException({
        name: 'Throttling',
        $fault: 'client',
        message: 'Rate exceeded',
        ...meta(400),
      }),
      /retry in a moment/,
    ],
    [
      'a 503',
      new CloudFrontServiceException({
        name: 'ServiceUnavailable',
        $fault: 'server',
        message: 'Service Unavailable',
        ...meta(503),
      }),
      /retry in a moment/,
    ],
    [
      'no answer at all',
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      /retry in a moment/,
    ],
    ['a refusal', new AccessDenied({ message: 'User is not authorized.', ...meta(403) }), /refused/],
  ])('%s', async (_, error, message) => {
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(error);
    const failure = await edge()
      .certificate(DOMAIN)
      .catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(DomainError);
    expect(failure).toMatchObject({ kind: 'edge_unavailable', cause: error });
    expect((failure as Error).message).toMatch(message);
    expect((failure as Error).message).not.toMatch(DEVELOPER_NOISE);
  });
});

describe('tenant names', () => {
  it('are the domain itself where CloudFront allows it', () => {
    expect(tenantNameOf(DOMAIN)).toBe(DOMAIN);
    expect(tenantNameOf('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
  });

  it("stay within CloudFront's rule and unique for domains longer than 128 characters", () => {
    const long = (last: string) => `${'a'.repeat(63)}.${'b'.repeat(63)}.${last}.example.com`;
    const names = [tenantNameOf(long('one')), tenantNameOf(long('two'))];
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9][a-zA-Z0-9-.]{1,126}[a-zA-Z0-9]$/);
    expect(new Set(names).size).toBe(2);
  });
});

describe("an imported domain's tenant: a certificate of its own (ACM, DNS-validated), no managed one", () => {
  const acm = mockClient(ACMClient);
  const OWN = 'arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012';
  const withAcm = () =>
    new CloudFrontEdgeTenants({
      client: new CloudFrontClient({ region: 'us-east-1' }),
      distributionId: DISTRIBUTION_ID,
      connectionGroupId: CONNECTION_GROUP_ID,
      certificates: new AcmCertificates({ client: new ACMClient({ region: 'us-east-1' }) }),
    });
  const issued = {
    Certificate: {
      CertificateArn: OWN,
      DomainName: DOMAIN,
      Status: 'ISSUED' as const,
      Type: 'AMAZON_ISSUED' as const,
    },
  };
  afterEach(() => acm.reset());

  it('creates the tenant with Customizations.Certificate.Arn and no ManagedCertificateRequest', async () => {
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(notFound());
    cloudfront.on(CreateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: ETAG });
    await withAcm().attach(DOMAIN, { project: 'acme', role: 'serve' }, { certificateArn: OWN });
    expect(inputs(CreateDistributionTenantCommand)).toEqual([
      {
        DistributionId: DISTRIBUTION_ID,
        ConnectionGroupId: CONNECTION_GROUP_ID,
        Name: DOMAIN,
        Domains: [{ Domain: DOMAIN }],
        Parameters: [{ Name: 'project', Value: 'acme' }],
        Customizations: { Certificate: { Arn: OWN } },
        Enabled: true,
      },
    ]);
  });

  it('puts the certificate on an existing tenant, and asks ACM (not CloudFront) for its state', async () => {
    existing();
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    await withAcm().attach(DOMAIN, { project: 'acme', role: 'serve' }, { certificateArn: OWN });
    const [update] = inputs(UpdateDistributionTenantCommand);
    expect(update).toMatchObject({ Customizations: { Certificate: { Arn: OWN } }, IfMatch: ETAG });
    expect(update?.ManagedCertificateRequest).toBeUndefined();

    cloudfront.reset();
    existing({ Customizations: { Certificate: { Arn: OWN } } });
    acm.on(DescribeCertificateCommand, { CertificateArn: OWN }).resolves(issued);
    expect(await withAcm().certificate(DOMAIN)).toEqual({ state: 'issued' });
    expect(cloudfront.commandCalls(GetManagedCertificateDetailsCommand)).toEqual([]);
  });

  it('keeps the certificate through a reroute (the update is sent whole), and a renewal moves to a managed one', async () => {
    existing({ Customizations: { Certificate: { Arn: OWN }, GeoRestrictions: { RestrictionType: 'none' } } });
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: NEW_ETAG });
    await withAcm().reroute(DOMAIN, { project: 'acme', role: 'redirect', primary: 'www.example.com' });
    await withAcm().renewCertificate(DOMAIN);
    const [reroute, renewal] = inputs(UpdateDistributionTenantCommand);
    expect(reroute?.Customizations).toEqual({
      Certificate: { Arn: OWN },
      GeoRestrictions: { RestrictionType: 'none' },
    });
    expect(renewal?.Customizations).toEqual({ GeoRestrictions: { RestrictionType: 'none' } });
    expect(renewal?.ManagedCertificateRequest).toEqual({
      ValidationTokenHost: 'cloudfront',
      PrimaryDomainName: DOMAIN,
    });
  });

  it('requests and describes certificates through ACM; without it, refuses in words', async () => {
    acm.on(RequestCertificateCommand).resolves({ CertificateArn: OWN });
    acm.on(DescribeCertificateCommand).resolves(issued);
    expect(await withAcm().requestOwnCertificate('Shop.Example.com.')).toEqual({ arn: OWN, state: 'issued' });
    expect(acm.commandCalls(RequestCertificateCommand)[0]?.args[0].input).toMatchObject({
      DomainName: DOMAIN,
    });
    await expect(edge().ownCertificate(OWN)).rejects.toMatchObject({ kind: 'edge_unavailable' });
  });

  it('reports ACM throttling as the edge being unavailable, in words', async () => {
    acm.on(RequestCertificateCommand).rejects(
      Object.assign(new Error('Rate exceeded'), {
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const refusal = await withAcm()
      .requestOwnCertificate(DOMAIN)
      .catch((error: unknown) => error as DomainError);
    expect(refusal).toMatchObject({
      kind: 'edge_unavailable',
      message: 'The edge cannot answer now: retry in a moment.',
    });
    expect((refusal as Error).message).not.toMatch(DEVELOPER_NOISE);
  });
});
