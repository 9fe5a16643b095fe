import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ACMClient,
  type CertificateDetail,
  DescribeCertificateCommand,
  RequestCertificateCommand,
  ThrottlingException,
} from '@aws-sdk/client-acm';
import {
  CloudFrontClient,
  CreateDistributionTenantCommand,
  type CreateDistributionTenantCommandInput,
  EntityNotFound,
  GetDistributionTenantByDomainCommand,
} from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { CustomDomains } from '../../lambda/core/custom-domains/custom-domains';
import type { DnsLookup } from '../../lambda/core/custom-domains/dns-verdict';
import { AcmCertificates } from '../../lambda/store/acm-certificates';
import { CustomDomainRepository } from '../../lambda/store/custom-domain-repository';
import { CloudFrontEdgeTenants } from '../../lambda/store/cloudfront-edge-tenants';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { CONSOLE_TOKEN_VARIABLE, runDomainsCommand } from '../../tools/domains';
import {
  describeImport,
  type ImportedDomain,
  importDomains,
  type OldDomainsConfig,
  readOldDomainsConfig,
} from '../../tools/domains-import';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/** `npm run domains -- import`: the old configuration's live domains move to the service without downtime. */

let t: DomainsTestApi;
let repository: CustomDomainRepository;
let documents: ReturnType<typeof createDocumentClient>;

beforeAll(async () => {
  t = await startDomainsTestApi();
  documents = createDocumentClient(t.api.dynamodbEndpoint);
  repository = new CustomDomainRepository(documents, LOCAL_TABLE_NAMES.customDomains);
});

afterAll(async () => {
  documents.destroy();
  await t.close();
});

function oldConfig(project: string, zone: string): OldDomainsConfig {
  return {
    cnameTargetDomain: 'tenants.localhost',
    projects: [
      {
        name: project,
        domains: [
          { name: `www.${zone}`, role: 'redirect' },
          { name: `shop.${zone}`, role: 'primary' },
        ],
      },
      { name: 'no-such-project', domains: [{ name: `x.${zone}`, role: 'primary' }] },
    ],
  };
}

it('imports against the local store and edge: records, certificates and tenants, once; the record change then', async () => {
  const { name: project, consoleToken } = await t.createProject('pro');
  const options = {
    store: repository,
    // Local mode has no ACM: the certificate of its own is issued at once (local/local-edge-tenants.ts).
    service: t.domains.service,
    projectExists: async (name: string) => name === project,
    routingEndpoint: t.domains.target,
    clock: () => Date.now(),
  };
  // The domain still points at its old target, which the platform serves (locally: the edge).
  for (const name of ['shop.import-local.test', 'www.import-local.test']) {
    await t.record(name, 'CNAME', `${name}.tenants.localhost`);
    await t.record(`${name}.tenants.localhost`, 'CNAME', t.domains.target);
  }
  const first = await importDomains(oldConfig(project, 'import-local.test'), options);
  expect(first.map(({ domain, record, tenant }) => [domain, record, tenant])).toEqual([
    ['shop.import-local.test', 'created', 'created'],
    ['www.import-local.test', 'created', 'created'],
    ['x.import-local.test', 'failed', 'skipped'],
  ]);
  expect(await repository.get('shop.import-local.test')).toMatchObject({
    project,
    role: 'primary',
    state: 'active',
    attached: true,
    certificate: 'issued',
    certificateArn: 'local-certificate:shop.import-local.test',
    migratedFrom: 'shop.import-local.test.tenants.localhost',
  });
  // The primary holds the project's claim, so a domain the tenant adds next is not a second primary.
  expect(await repository.claimedPrimary(project)).toBe('shop.import-local.test');
  expect(t.domains.edge.routes().get('www.import-local.test')).toMatchObject({
    role: 'redirect',
    primary: 'shop.import-local.test',
  });

  // Re-running skips what exists and prints the change; the local authority's certificate is issued.
  await t.domains.tenants.attemptPending();
  const again = await importDomains(oldConfig(project, 'import-local.test'), options);
  expect(again.slice(0, 2)).toEqual([
    expect.objectContaining({
      record: 'exists',
      tenant: 'exists',
      certificate: 'issued',
      recordChange: expect.stringMatching(
        /^shop\.import-local\.test\.tenants\.localhost CNAME domains\.localhost/,
      ),
    }),
    expect.objectContaining({ record: 'exists', tenant: 'exists', certificate: 'issued' }),
  ]);

  // The project sees them as its own, active and a redirect.
  const { body } = await t.console(consoleToken, 'GET', '/domains');
  expect(body.domains).toEqual([
    expect.objectContaining({ name: 'shop.import-local.test', state: 'active' }),
    expect.objectContaining({ name: 'www.import-local.test', state: 'redirect' }),
  ]);

  // status --all on the table shows the change for the migrated domains.
  const lines: string[] = [];
  expect(
    await runDomainsCommand(['status', '--all', '--json'], {
      out: (line) => lines.push(line),
      endpoint: t.api.dynamodbEndpoint,
      env: { [CONSOLE_TOKEN_VARIABLE]: consoleToken },
    }),
  ).toBe(0);
  expect(JSON.parse(lines[0] ?? '')).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        domain: 'shop.import-local.test',
        oldTarget: 'shop.import-local.test.tenants.localhost',
        recordChange: expect.stringMatching(/ CNAME domains\.localhost/),
      }),
    ]),
  );
});

it('the import command reads the old file, prints per domain, and exits 1 when a domain was not imported', async () => {
  const { name: project } = await t.createProject('pro');
  const file = path.join(tmpdir(), `old-domains-${project}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      platform: {
        domain: 'localhost',
        hostedZone: { id: 'Z1', name: 'localhost' },
        cnameTargetDomain: 'tenants.localhost',
      },
      projects: [
        {
          name: project,
          domains: [{ name: 'shop.import-cli.test', role: 'primary', zone: { name: 'import-cli.test' } }],
        },
      ],
    }),
  );
  expect(readOldDomainsConfig(file).projects[0]?.domains).toEqual([
    { name: 'shop.import-cli.test', role: 'primary' },
  ]);
  const lines: string[] = [];
  const code = await runDomainsCommand(['import', file], {
    out: (line) => lines.push(line),
    endpoint: t.api.dynamodbEndpoint,
  });
  expect(code).toBe(0);
  expect(lines).toEqual([
    [
      `shop.import-cli.test (project ${project}, primary): record created, certificate pending, certificate and tenant from npm start's service (list or verify the project's domains).`,
      '  Keep shop.import-cli.test.tenants.localhost as it is until the certificate is issued (status --all shows the change then).',
    ].join('\n'),
    "Local mode: npm start's service gives each imported domain its certificate and tenant when the project's domains are listed or verified.",
  ]);
  // The record has no tenant yet, so the stale-tenant sweep leaves alone a tenant made a moment later.
  expect(await repository.get('shop.import-cli.test')).toMatchObject({
    attached: false,
    state: 'certificate-pending',
  });
  await expect(
    runDomainsCommand(['import', '/nonexistent.json'], {
      out: () => undefined,
      endpoint: t.api.dynamodbEndpoint,
    }),
  ).rejects.toThrow('No file /nonexistent.json.');
});

describe('with ACM and CloudFront mocked at the SDK boundary', () => {
  const cloudfront = mockClient(CloudFrontClient);
  const acm = mockClient(ACMClient);
  afterEach(() => {
    cloudfront.reset();
    acm.reset();
  });
  const ARN = (n: number) =>
    `arn:aws:acm:us-east-1:123456789012:certificate/0000000${n}-1234-1234-1234-123456789012`;
  const record = (domain: string) => ({
    Name: `_a79865eb4cd1a6ab990a45779b4e0b96.${domain}.`,
    Type: 'CNAME' as const,
    Value: '_424c7224e9b0146f9a8808af955727d0.acm-validations.aws.',
  });
  /** A certificate as DescribeCertificate returns it. */
  const described = (arn: string, domain: string, Status: CertificateDetail['Status']) => ({
    Certificate: {
      CertificateArn: arn,
      DomainName: domain,
      Status,
      Type: 'AMAZON_ISSUED' as const,
      DomainValidationOptions: [
        {
          DomainName: domain,
          ValidationMethod: 'DNS' as const,
          ValidationStatus: Status === 'ISSUED' ? ('SUCCESS' as const) : ('PENDING_VALIDATION' as const),
          ResourceRecord: record(domain),
        },
      ],
    },
  });

  function awsImport(project: string, dns: Pick<DnsLookup, 'cname'>, zone = 'import-aws.test') {
    const edge = new CloudFrontEdgeTenants({
      client: new CloudFrontClient({ region: 'us-east-1' }),
      distributionId: 'E1',
      connectionGroupId: 'cg_1',
      certificates: new AcmCertificates({ client: new ACMClient({ region: 'us-east-1' }) }),
    });
    const service = new CustomDomains({
      store: repository,
      edge,
      dns: {
        cname: dns.cname,
        a: async () => [],
        aaaa: async () => [],
        caa: async () => [],
        txt: async () => [],
      },
      clock: () => Date.now(),
      target: 'domains.platform.test',
      platformDomain: 'platform.test',
    });
    return importDomains(oldConfig(project, zone), {
      store: repository,
      service,
      dns,
      projectExists: async (name) => name === project,
      routingEndpoint: 'd111111abcdef8.cloudfront.net',
      clock: () => Date.now(),
    });
  }

  it('stores each record first, requests one certificate each, prints its validation record, and creates the tenant with it once issued', async () => {
    const { name: project } = await t.createProject('pro');
    const shop = 'shop.import-aws.test';
    const www = 'www.import-aws.test';
    acm.on(RequestCertificateCommand, { DomainName: shop }).resolves({ CertificateArn: ARN(1) });
    acm.on(RequestCertificateCommand, { DomainName: www }).resolves({ CertificateArn: ARN(2) });
    acm
      .on(DescribeCertificateCommand, { CertificateArn: ARN(1) })
      .resolves(described(ARN(1), shop, 'PENDING_VALIDATION'));
    acm.on(DescribeCertificateCommand, { CertificateArn: ARN(2) }).resolves(described(ARN(2), www, 'ISSUED'));
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(
      new EntityNotFound({
        message: 'The specified entity does not exist.',
        $metadata: { httpStatusCode: 404 },
      }),
    );
    cloudfront
      .on(CreateDistributionTenantCommand)
      .resolves({ DistributionTenant: { Id: 'dt_2' }, ETag: 'E' });
    // The tenant of shop kept the old flow's validation record; the one of www did not.
    const dns = {
      cname: async (name: string) =>
        name === record(shop).Name.slice(0, -1) ? [record(shop).Value.slice(0, -1)] : [],
    };

    const results = await awsImport(project, dns);
    expect(results.slice(0, 2)).toEqual([
      expect.objectContaining({
        domain: shop,
        record: 'created',
        tenant: 'waiting',
        certificate: 'pending',
        certificateArn: ARN(1),
        validationRecord: {
          name: `_a79865eb4cd1a6ab990a45779b4e0b96.${shop}`,
          value: '_424c7224e9b0146f9a8808af955727d0.acm-validations.aws',
          found: true,
        },
      }),
      expect.objectContaining({
        domain: www,
        record: 'created',
        tenant: 'created',
        certificate: 'issued',
        recordChange: expect.stringMatching(
          /^www\.import-aws\.test\.tenants\.localhost CNAME d111111abcdef8\.cloudfront\.net/,
        ),
      }),
    ]);
    expect(results.slice(0, 2).map((result) => result.reason)).toEqual([undefined, undefined]);
    expect(describeImport(results[0] as ImportedDomain)).toContain(
      `Validation record: _a79865eb4cd1a6ab990a45779b4e0b96.${shop} CNAME _424c7224e9b0146f9a8808af955727d0.acm-validations.aws (found at the DNS: no action for the tenant).`,
    );
    expect(acm.commandCalls(RequestCertificateCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({ DomainName: shop, ValidationMethod: 'DNS' }),
      expect.objectContaining({ DomainName: www, ValidationMethod: 'DNS' }),
    ]);
    const created = cloudfront
      .commandCalls(CreateDistributionTenantCommand)
      .map((call) => call.args[0].input as CreateDistributionTenantCommandInput);
    expect(created).toEqual([
      expect.objectContaining({
        Domains: [{ Domain: www }],
        Parameters: [
          { Name: 'project', Value: project },
          { Name: 'primaryDomain', Value: shop },
        ],
        Customizations: { Certificate: { Arn: ARN(2) } },
      }),
    ]);
    expect(created[0]?.ManagedCertificateRequest).toBeUndefined();
    expect(await repository.get(shop)).toMatchObject({
      attached: false,
      certificateArn: ARN(1),
      state: 'certificate-pending',
    });
    expect(await repository.get(www)).toMatchObject({
      attached: true,
      certificateArn: ARN(2),
      state: 'redirect',
    });

    // Issued meanwhile: the re-run requests nothing again, and creates the tenant of shop.
    acm
      .on(DescribeCertificateCommand, { CertificateArn: ARN(1) })
      .resolves(described(ARN(1), shop, 'ISSUED'));
    const again = await awsImport(project, dns);
    expect(again.slice(0, 2).map(({ record: r, tenant, certificate }) => [r, tenant, certificate])).toEqual([
      ['exists', 'created', 'issued'],
      ['exists', 'exists', 'issued'],
    ]);
    expect(acm.commandCalls(RequestCertificateCommand)).toHaveLength(2);
    expect(cloudfront.commandCalls(CreateDistributionTenantCommand)).toHaveLength(2);
    expect(await repository.get(shop)).toMatchObject({
      attached: true,
      state: 'active',
      certificate: 'issued',
    });
  });

  it('fails a domain whose certificate timed out with the reason and the fix, and reports throttling without losing the record', async () => {
    const { name: project } = await t.createProject('pro');
    const shop = 'shop.import-failing.test';
    acm.on(RequestCertificateCommand, { DomainName: shop }).resolves({ CertificateArn: ARN(3) });
    acm.on(DescribeCertificateCommand).resolves(described(ARN(3), shop, 'VALIDATION_TIMED_OUT'));
    acm
      .on(RequestCertificateCommand, { DomainName: 'www.import-failing.test' })
      .rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }));
    const [timedOut, throttled] = await awsImport(project, { cname: async () => [] }, 'import-failing.test');
    expect(timedOut).toMatchObject({ record: 'created', tenant: 'waiting', certificate: 'timed-out' });
    expect(timedOut?.reason).toContain('ACM did not find the validation CNAME within 72 hours');
    expect(timedOut?.reason).toContain(
      `keep the validation record _a79865eb4cd1a6ab990a45779b4e0b96.${shop} CNAME`,
    );
    expect(timedOut?.reason).toContain('Re-verify to request it again');
    expect(await repository.get(shop)).toMatchObject({ state: 'failed', certificate: 'timed-out' });
    expect(throttled).toMatchObject({ record: 'created', tenant: 'failed' });
    expect(throttled?.reason).toBe(
      'The edge cannot answer now: retry in a moment. Re-run the import: it goes on from the record',
    );
    expect(await repository.get('www.import-failing.test')).toMatchObject({ project, attached: false });
    expect(cloudfront.commandCalls(CreateDistributionTenantCommand)).toEqual([]);
  });
});
