import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACMClient, DescribeCertificateCommand, ListCertificatesCommand } from '@aws-sdk/client-acm';
import {
  CloudFormationClient,
  DescribeStacksCommand,
  type Output,
  type StackStatus,
} from '@aws-sdk/client-cloudformation';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { issueConsoleToken, newUsageId } from '../../lambda/domain/project';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { DOMAINS_TABLE, PROJECTS_TABLE } from '../../lambda/store/table-schema';
import type { DomainsConfig } from '../../lib/config/domains';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { Refusal, runDomainsCommand } from '../../tools/domains';
import type { DnsLookup } from '../../tools/domains-dns';
import { DomainStateStore } from '../../tools/domains-store';
import { UsageError } from '../../tools/failures';
import { runTs } from '../support/processes';
import { startTestStore, type TestStore } from '../support/embedded-store';

const ENVIRONMENT_STACK = 'AnimalStore-production';
const PROJECT_STACK = 'AnimalStore-production-domains-acme';
/** A deployed table name, unlike the local one, so a test can tell which table was used. */
const DEPLOYED_TABLE = 'AnimalStore-production-DataDomainsTable0A1B2C-XYZ';
const DEPLOYED_PROJECTS_TABLE = 'AnimalStore-production-DataProjectsTable0D1E2F-XYZ';
const NEW_DOMAIN = 'api.acme.test';
const SHOP = 'shop.acme.test';

const CONFIG: DomainsConfig = {
  platform: {
    domain: 'animalstore.test',
    hostedZone: { id: 'Z0PLATFORM', name: 'animalstore.test' },
    cnameTargetDomain: 'tenants.animalstore.test',
  },
  projects: [
    {
      name: 'acme',
      domains: [{ name: SHOP, role: 'primary', zone: { name: 'acme.test' } }],
    },
  ],
};

const stacksMock = mockClient(CloudFormationClient);
const acmMock = mockClient(ACMClient);
let t: TestStore;
let dir: string;
let configPath: string;
const now = new Date('2030-01-01T12:00:00Z');

const deployed = () => new DomainStateStore(t.documents, DEPLOYED_TABLE);
const local = () => new DomainStateStore(t.documents, LOCAL_TABLE_NAMES.domains);

function missingStack(stackName: string) {
  return Object.assign(new Error(`Stack with id ${stackName} does not exist`), { name: 'ValidationError' });
}

function environmentStack(outputs: Output[]) {
  stacksMock.on(DescribeStacksCommand, { StackName: ENVIRONMENT_STACK }).resolves({
    Stacks: [
      {
        StackName: ENVIRONMENT_STACK,
        CreationTime: new Date(),
        StackStatus: 'UPDATE_COMPLETE',
        Outputs: outputs,
      },
    ],
  });
}

function projectStack(status: StackStatus | undefined) {
  const command = stacksMock.on(DescribeStacksCommand, { StackName: PROJECT_STACK });
  if (status === undefined) command.rejects(missingStack(PROJECT_STACK));
  else
    command.resolves({
      Stacks: [{ StackName: PROJECT_STACK, CreationTime: new Date(), StackStatus: status }],
    });
}

/** Stacks CloudFormation was asked about, in order. */
const describedStacks = () =>
  stacksMock.commandCalls(DescribeStacksCommand).map((call) => call.args[0].input.StackName);

/** DNS in which every custom domain of the configuration is a CNAME of its platform target. */
const verifiedDns: DnsLookup = {
  cname: (name) => Promise.resolve(name.endsWith('.acme.test') ? [`${name}.tenants.animalstore.test`] : []),
  a: () => Promise.resolve([]),
  aaaa: () => Promise.resolve([]),
  caa: () => Promise.resolve([]),
};

/** Runs the tool as `npm run domains` would, with AWS clients whose commands the mocks answer. */
async function run(...argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runDomainsCommand([...argv, '--config', configPath], {
    out: (line) => lines.push(line),
    // Nothing listens there: with --stage the local store must not be used.
    endpoint: 'http://127.0.0.1:1',
    tableName: LOCAL_TABLE_NAMES.domains,
    configPath: 'unused.json',
    now: () => now,
    lookup: () => verifiedDns,
    acm: new ACMClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
    stageClients: {
      cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
      documents: t.documents,
    },
  });
  return { code, out: lines.join('\n') };
}

beforeAll(async () => {
  t = await startTestStore();
  await t.createTable(DOMAINS_TABLE, DEPLOYED_TABLE);
  // The plan of acme, where the projects tool keeps it: the deployed projects table.
  await t.createTable(PROJECTS_TABLE, DEPLOYED_PROJECTS_TABLE);
  const created = new Date().toISOString();
  await new ProjectRepository(t.documents, DEPLOYED_PROJECTS_TABLE).create({
    name: 'acme',
    plan: 'pro',
    createdAt: created,
    consoleTokenHash: issueConsoleToken('acme').hash,
    consoleTokenIssuedAt: created,
    usageId: newUsageId(),
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'domains-stage-'));
  configPath = path.join(dir, 'domains.json');
});

afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  for (const table of [DEPLOYED_TABLE, LOCAL_TABLE_NAMES.domains]) {
    const { Items = [] } = await t.documents.send(new ScanCommand({ TableName: table }));
    for (const { id } of Items) await t.documents.send(new DeleteCommand({ TableName: table, Key: { id } }));
  }
  stacksMock.reset();
  acmMock.reset();
  environmentStack([
    { OutputKey: 'ApiKeysTableName', OutputValue: 'AnimalStore-production-DataApiKeysTable-XYZ' },
    { OutputKey: 'DomainsTableName', OutputValue: DEPLOYED_TABLE },
    { OutputKey: 'ProjectsTableName', OutputValue: DEPLOYED_PROJECTS_TABLE },
  ]);
  projectStack('UPDATE_COMPLETE');
  writeFileSync(configPath, JSON.stringify(CONFIG));
});

describe('npm run domains -- --stage production', () => {
  test('deployed, add and status keep the state in the table the DomainsTableName output names', async () => {
    const recorded = await run('deployed', 'acme', '--stage', 'production');
    expect(recorded.code).toBe(0);
    expect(recorded.out).toBe('Project acme: first successful deploy recorded at 2030-01-01T12:00:00.000Z.');
    expect(describedStacks()).toEqual([ENVIRONMENT_STACK, PROJECT_STACK]);

    const added = await run('add', 'acme', NEW_DOMAIN, '--stage', 'production');
    expect(added.code).toBe(0);
    // The follow-up commands act on the same deployed state.
    expect(added.out).toContain(
      `npx cdk deploy -c domainsConfig=${configPath} ${PROJECT_STACK} && npm run domains -- deployed acme --stage production`,
    );
    expect(added.out).toContain(`Then: npm run domains -- verify ${NEW_DOMAIN} --stage production`);

    const status = await run('status', 'acme', '--json', '--stage', 'production');
    expect(JSON.parse(status.out)).toEqual([
      expect.objectContaining({ domain: SHOP, label: 'pending DNS (no state yet: run verify)' }),
      expect.objectContaining({ domain: NEW_DOMAIN, state: 'pending-dns', since: now.toISOString() }),
    ]);

    expect(await deployed().deployOf('acme')).toEqual({
      id: 'project:acme',
      project: 'acme',
      deployedAt: now.toISOString(),
    });
    expect(await deployed().get(NEW_DOMAIN)).toEqual({
      id: NEW_DOMAIN,
      project: 'acme',
      state: 'pending-dns',
      since: now.toISOString(),
    });
    expect(await local().deployOf('acme')).toBeUndefined();
    expect(await local().get(NEW_DOMAIN)).toBeUndefined();
  });

  test('verify takes the certificate from ACM: a verified domain without one is not active', async () => {
    acmMock.on(ListCertificatesCommand).resolves({ CertificateSummaryList: [] });
    const { code, out } = await run('verify', SHOP, '--stage', 'production');
    expect(code).toBe(0);
    expect(acmMock.commandCalls(ListCertificatesCommand)).toHaveLength(1);
    expect(out).toContain(`Certificate: none in ACM yet for ${SHOP}`);
    expect((await deployed().get(SHOP))?.state).toBe('verified');

    const arn = 'arn:aws:acm:eu-west-1:123456789012:certificate/abc';
    acmMock.on(ListCertificatesCommand).resolves({
      CertificateSummaryList: [{ DomainName: SHOP, CertificateArn: arn }],
    });
    acmMock.on(DescribeCertificateCommand, { CertificateArn: arn }).resolves({
      Certificate: { CertificateArn: arn, Status: 'ISSUED' },
    });
    await run('verify', SHOP, '--stage', 'production');
    expect(await deployed().get(SHOP)).toEqual(
      expect.objectContaining({ state: 'active', certificateArn: arn }),
    );
  });

  test('a stack without the DomainsTableName output: says which stack and what to deploy', async () => {
    stacksMock.reset();
    environmentStack([{ OutputKey: 'ApiKeysTableName', OutputValue: 'AnimalStore-production-keys' }]);
    await expect(run('status', '--stage', 'production')).rejects.toThrow(
      'Stack AnimalStore-production has no output DomainsTableName: deploy the current version of it.',
    );
  });

  test('no environment stack: says it does not exist and where to look', async () => {
    stacksMock.reset();
    stacksMock.on(DescribeStacksCommand).rejects(missingStack(ENVIRONMENT_STACK));
    const failure = run('deployed', 'acme', '--stage', 'production');
    await expect(failure).rejects.toThrow(
      /^Stack AnimalStore-production does not exist in this account and region: deploy it, or set AWS_REGION \/ AWS_PROFILE/,
    );
    expect(await deployed().deployOf('acme')).toBeUndefined();
  });

  test('staging has no custom domains: refused as a usage error before any AWS call', async () => {
    const failure = run('status', '--stage', 'staging');
    await expect(failure).rejects.toThrow(UsageError);
    await expect(failure).rejects.toThrow(
      /Stage staging has no custom domains.*Use --stage production, or no --stage for the local store\./,
    );
    expect(stacksMock.calls()).toHaveLength(0);
  });

  test('staging is refused with exit code 2 from the command line', async () => {
    const result = await runTs('tools/domains.ts', ['status', '--stage', 'staging'], {
      AWS_REGION: 'eu-west-1',
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^Stage staging has no custom domains[^\n]*\n$/) as string,
    });
  }, 30_000);
});

describe('deployed --stage checks the project stack in CloudFormation', () => {
  test.each<[StackStatus, RegExp]>([
    ['ROLLBACK_COMPLETE', /its first deploy failed and was rolled back/],
    ['UPDATE_IN_PROGRESS', /has not finished: wait for it to end/],
    ['CREATE_FAILED', /its last operation failed/],
  ])('refuses %s, naming the stack, its status and the deploy to run', async (status, why) => {
    projectStack(status);
    const failure = run('deployed', 'acme', '--stage', 'production');
    await expect(failure).rejects.toThrow(Refusal);
    await expect(failure).rejects.toThrow(`Stack ${PROJECT_STACK} is ${status}, not deployed`);
    await expect(failure).rejects.toThrow(why);
    await expect(failure).rejects.toThrow(`npx cdk deploy -c domainsConfig=${configPath} ${PROJECT_STACK}`);
    expect(await deployed().deployOf('acme')).toBeUndefined();
  });

  test('refuses when the project stack does not exist', async () => {
    projectStack(undefined);
    const failure = run('deployed', 'acme', '--stage', 'production');
    await expect(failure).rejects.toThrow(Refusal);
    await expect(failure).rejects.toThrow(
      `Stack ${PROJECT_STACK} does not exist in this account and region, so project acme has no successful deploy in production: deploy it first (npx cdk deploy -c domainsConfig=${configPath} ${PROJECT_STACK}`,
    );
    expect(await deployed().deployOf('acme')).toBeUndefined();
  });

  test.each<StackStatus>(['UPDATE_COMPLETE', 'CREATE_COMPLETE', 'UPDATE_ROLLBACK_COMPLETE'])(
    'accepts %s and records the deploy in the deployed table',
    async (status) => {
      projectStack(status);
      expect((await run('deployed', 'acme', '--stage', 'production')).code).toBe(0);
      expect(await deployed().deployOf('acme')).toEqual(
        expect.objectContaining({ deployedAt: now.toISOString() }),
      );
    },
  );

  test('without --stage it records the deploy in the local store and asks CloudFormation nothing', async () => {
    projectStack(undefined);
    const lines: string[] = [];
    const code = await runDomainsCommand(['deployed', 'acme', '--config', configPath], {
      out: (line) => lines.push(line),
      endpoint: t.store.endpoint,
      tableName: LOCAL_TABLE_NAMES.domains,
      configPath: 'unused.json',
      now: () => now,
      stageClients: { cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }) },
    });
    expect(code).toBe(0);
    expect(stacksMock.calls()).toHaveLength(0);
    expect(await local().deployOf('acme')).toBeDefined();
    expect(await deployed().deployOf('acme')).toBeUndefined();
  });
});
