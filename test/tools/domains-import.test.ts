import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CloudFrontClient,
  CreateDistributionTenantCommand,
  type CreateDistributionTenantCommandInput,
  EntityNotFound,
  GetDistributionTenantByDomainCommand,
  GetManagedCertificateDetailsCommand,
} from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { CustomDomainRepository } from '../../lambda/store/custom-domain-repository';
import { CloudFrontEdgeTenants } from '../../lambda/store/cloudfront-edge-tenants';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { CONSOLE_TOKEN_VARIABLE, runDomainsCommand } from '../../tools/domains';
import { importDomains, type OldDomainsConfig, readOldDomainsConfig } from '../../tools/domains-import';
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

it('imports against the local store and edge: records and tenants, once; the record change once issued', async () => {
  const { name: project, consoleToken } = await t.createProject('pro');
  const options = {
    store: repository,
    edge: t.domains.tenants,
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
    state: 'certificate-pending',
    attached: true,
    migratedFrom: 'shop.import-local.test.tenants.localhost',
  });
  expect(t.domains.edge.routes().get('www.import-local.test')).toMatchObject({
    role: 'redirect',
    primary: 'shop.import-local.test',
  });

  // Re-running skips what exists; the certificates are issued by now, so it prints the change.
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
    `shop.import-cli.test (project ${project}, primary): record created, tenant at the next npm start. Keep shop.import-cli.test.tenants.localhost as it is until the certificate is issued (status --all shows the change then).`,
    'Local mode: npm start gives every imported domain its tenant when it starts: restart it.',
  ]);
  await expect(
    runDomainsCommand(['import', '/nonexistent.json'], {
      out: () => undefined,
      endpoint: t.api.dynamodbEndpoint,
    }),
  ).rejects.toThrow('No file /nonexistent.json.');
});

describe('with CloudFront mocked at the SDK boundary', () => {
  const cloudfront = mockClient(CloudFrontClient);
  afterEach(() => cloudfront.reset());

  it('creates each tenant with self-hosted validation, and skips one that exists', async () => {
    const { name: project } = await t.createProject('pro');
    const notFound = new EntityNotFound({
      message: 'The specified entity does not exist.',
      $metadata: { httpStatusCode: 404 },
    });
    cloudfront.on(GetManagedCertificateDetailsCommand).rejects(notFound);
    cloudfront.on(GetDistributionTenantByDomainCommand).rejects(notFound);
    cloudfront.on(GetDistributionTenantByDomainCommand, { Domain: 'www.import-aws.test' }).resolves({
      DistributionTenant: {
        Id: 'dt_1',
        DistributionId: 'E1',
        Domains: [{ Domain: 'www.import-aws.test' }],
      },
      ETag: 'E',
    });
    cloudfront.on(GetManagedCertificateDetailsCommand, { Identifier: 'dt_1' }).resolves({
      ManagedCertificateDetails: { CertificateStatus: 'issued', ValidationTokenHost: 'self-hosted' },
    });
    cloudfront
      .on(CreateDistributionTenantCommand)
      .resolves({ DistributionTenant: { Id: 'dt_2' }, ETag: 'E' });
    const edge = new CloudFrontEdgeTenants({
      client: new CloudFrontClient({ region: 'us-east-1' }),
      distributionId: 'E1',
      connectionGroupId: 'cg_1',
    });
    const results = await importDomains(oldConfig(project, 'import-aws.test'), {
      store: repository,
      edge,
      projectExists: async (name) => name === project,
      routingEndpoint: 'd111111abcdef8.cloudfront.net',
      clock: () => Date.now(),
    });
    expect(
      results.slice(0, 2).map(({ domain, tenant, recordChange }) => [domain, tenant, recordChange]),
    ).toEqual([
      ['shop.import-aws.test', 'created', undefined],
      [
        'www.import-aws.test',
        'exists',
        expect.stringMatching(
          /^www\.import-aws\.test\.tenants\.localhost CNAME d111111abcdef8\.cloudfront\.net/,
        ),
      ],
    ]);
    const created = cloudfront
      .commandCalls(CreateDistributionTenantCommand)
      .map((call) => call.args[0].input as CreateDistributionTenantCommandInput);
    expect(created).toEqual([
      expect.objectContaining({
        Domains: [{ Domain: 'shop.import-aws.test' }],
        ManagedCertificateRequest: {
          ValidationTokenHost: 'self-hosted',
          PrimaryDomainName: 'shop.import-aws.test',
        },
      }),
    ]);
  });
});
