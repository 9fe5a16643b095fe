import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { type PlanLimits, type PlanName, PLANS } from '../../lambda/core/plans';
import { parseConsoleToken, type ProjectRecord } from '../../lambda/core/project';
import { CustomDomainRepository } from '../../lambda/store/custom-domain-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import {
  API_KEYS_TABLE,
  CUSTOM_DOMAINS_TABLE,
  PETS_TABLE,
  INVITATIONS_TABLE,
  PROJECT_MEMBERS_TABLE,
  PROJECTS_TABLE,
} from '../../lambda/store/table-schema';
import { MemberRepository } from '../../lambda/store/member-repository';
import { InvitationRepository } from '../../lambda/store/invitation-repository';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { Refusal, UsageError } from '../../tools/failures';
import { runKeysCommand } from '../../tools/keys';
import { ProjectAdmin } from '../../tools/project-admin';
import { runProjectsCommand } from '../../tools/projects';
import { connectStage, type StageConnection } from '../../tools/stage';
import { projectKeyName, usagePlanName } from '../../lib/config/usage-plan-names';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { oldKeyItem, oldPetItem } from './old-release-data';
import {
  everythingSentToAws,
  FakeGateway,
  gatewayCommandsSent,
  gatewayMock,
  inputsOf,
  stackWithOutputs,
  stacksMock,
} from './fake-gateway';

const STACK = 'AnimalStore-staging';
const PLATFORM = 'animalstore.example';
/** Deployed table names, unlike the local ones, so a test can tell which tables were used. */
const DEPLOYED = {
  apiKeys: 'AnimalStore-staging-DataApiKeys-XYZ',
  projects: 'AnimalStore-staging-DataProjects-XYZ',
  pets: 'AnimalStore-staging-DataPets-XYZ',
  customDomains: 'AnimalStore-staging-DataCustomDomains-XYZ',
  members: 'AnimalStore-staging-DataProjectMembers-XYZ',
  invitations: 'AnimalStore-staging-DataInvitations-XYZ',
};

let t: TestStore;
let fake: FakeGateway;
let projects: ProjectRepository;
/** What the injected key-cache wait saw, each time it ran. */
let waits: (() => Promise<void>)[];
let waitHook: () => Promise<void>;

const clients = () => ({
  cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
  apiGateway: new APIGatewayClient({ region: 'eu-west-1' }),
  documents: t.documents,
});

beforeAll(async () => {
  t = await startTestStore();
  await t.createTable(API_KEYS_TABLE, DEPLOYED.apiKeys);
  await t.createTable(PROJECTS_TABLE, DEPLOYED.projects);
  await t.createTable(PETS_TABLE, DEPLOYED.pets);
  await t.createTable(CUSTOM_DOMAINS_TABLE, DEPLOYED.customDomains);
  await t.createTable(PROJECT_MEMBERS_TABLE, DEPLOYED.members);
  await t.createTable(INVITATIONS_TABLE, DEPLOYED.invitations);
  projects = new ProjectRepository(t.documents, DEPLOYED.projects);
});
afterAll(() => t.close());

beforeEach(() => {
  gatewayMock.reset();
  stacksMock.reset();
  stackWithOutputs(STACK, {
    [STACK_OUTPUTS.baseUrl]: 'https://example.execute-api.eu-west-1.amazonaws.com/staging/v1',
    [STACK_OUTPUTS.apiKeysTable]: DEPLOYED.apiKeys,
    [STACK_OUTPUTS.projectsTable]: DEPLOYED.projects,
    [STACK_OUTPUTS.petsTable]: DEPLOYED.pets,
    [STACK_OUTPUTS.customDomainsTable]: DEPLOYED.customDomains,
    [STACK_OUTPUTS.projectMembersTable]: DEPLOYED.members,
    [STACK_OUTPUTS.invitationsTable]: DEPLOYED.invitations,
    [STACK_OUTPUTS.platformDomain]: PLATFORM,
  });
  // Another stack's usage plans too, which must be left alone.
  fake = new FakeGateway(STACK, [
    ...FakeGateway.stackPlans('AnimalStore-production'),
    ...FakeGateway.stackPlans(STACK),
  ]);
  fake.install();
  waits = [];
  waitHook = async () => undefined;
});

/** Runs `npm run projects -- ... --stage staging` in process; resolves to its stdout lines. */
async function projectsTool(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  await runProjectsCommand([...argv, '--stage', 'staging'], {
    out: (line) => lines.push(line),
    endpoint: 'http://127.0.0.1:1',
    stageClients: clients(),
    stageOptions: {
      waitForKeyCaches: async () => {
        waits.push(waitHook);
        await waitHook();
      },
    },
  });
  return lines;
}

let counter = 0;
const fresh = () => `stage-${++counter}`;

async function createProject(plan: PlanName = 'free', numbers?: PlanLimits): Promise<ProjectRecord> {
  const name = fresh();
  const extra = numbers
    ? ['--per-minute', String(numbers.perMinute), '--per-day', String(numbers.perDay)]
    : [];
  await projectsTool('create', name, '--plan', plan, ...extra);
  const record = await projects.get(name);
  if (!record) throw new Error(`project ${name} was not stored`);
  return record;
}

describe('projects create --stage', () => {
  it("creates one gateway key named for the project, valued by its usage id, in its plan's usage plan; then the record", async () => {
    const name = fresh();
    const lines = await projectsTool('create', name, '--plan', 'pro', '--json');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0] ?? '') as { consoleToken: string; address: string };
    expect(created.address).toBe(`https://${name}.${PLATFORM}/v1`);

    const record = await projects.get(name);
    expect(inputsOf(CreateApiKeyCommand)).toEqual([
      expect.objectContaining({ name: projectKeyName(STACK, name), value: record?.usageId, enabled: true }),
    ]);
    expect(fake.plansOfValue(record?.usageId ?? '')).toEqual([usagePlanName(STACK, 'pro')]);
    expect(await new ProjectRepository(t.documents, LOCAL_TABLE_NAMES.projects).get(name)).toBeUndefined();
    const secret = parseConsoleToken(created.consoleToken)?.secret ?? '';
    expect(everythingSentToAws()).not.toContain(secret);
    expect(everythingSentToAws()).not.toContain(record?.consoleTokenHash);
  });

  it('enterprise goes into the enterprise usage plan with its numbers on the project', async () => {
    const record = await createProject('enterprise', { perMinute: 3000, perDay: 3_000_000 });
    expect(record.agreedLimits).toEqual({ perMinute: 3000, perDay: 3_000_000 });
    expect(fake.plansOfValue(record.usageId)).toEqual([usagePlanName(STACK, 'enterprise')]);
  });

  it("fails with a clear message at API Gateway's 10,000-key quota, and stores nothing", async () => {
    fake.quota = fake.apiKeys.size;
    const name = fresh();
    const error = await projectsTool('create', name).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Error).message).toBe(
      `Project ${name} was not created: API Gateway holds its most API keys: 10,000 per account and region, ` +
        `shared by every environment of the account (${STACK} among them), and AWS does not raise it. ` +
        'Delete projects that are no longer used (npm run projects -- delete), or serve more projects from another account or region.',
    );
    expect(await projects.get(name)).toBeUndefined();
    expect(gatewayMock.commandCalls(CreateUsagePlanKeyCommand)).toHaveLength(0);
  });

  it('a failed CreateUsagePlanKey deletes the new gateway key again and stores no project', async () => {
    gatewayMock.on(CreateUsagePlanKeyCommand).rejects(new Error('Rate exceeded'));
    const name = fresh();
    await expect(projectsTool('create', name)).rejects.toThrow(
      /^Could not create the gateway key of project stage-\d+ in API Gateway of AnimalStore-staging: could not add it to usage plan AnimalStore-staging-free \(Rate exceeded\)\. No project was created\.$/,
    );
    expect(fake.apiKeys.size).toBe(0);
    expect(await projects.get(name)).toBeUndefined();
  });

  it('a plan without a deployed usage plan fails before any gateway key is made', async () => {
    fake.planIds.delete(usagePlanName(STACK, 'business'));
    await expect(projectsTool('create', fresh(), '--plan', 'business')).rejects.toThrow(
      'AnimalStore-staging has no usage plan named AnimalStore-staging-business',
    );
    expect(gatewayMock.commandCalls(CreateApiKeyCommand)).toHaveLength(0);
  });
});

describe('projects set-plan --stage', () => {
  it('creates the key in the new usage plan, switches the project to it, waits for the key caches, then deletes the old key', async () => {
    const before = await createProject('free');
    gatewayMock.resetHistory();
    let duringWait: { record?: ProjectRecord; values: string[] } | undefined;
    waitHook = async () => {
      duringWait = {
        record: await projects.get(before.name),
        values: [...fake.apiKeys.values()].map((key) => key.value),
      };
    };

    const lines = await projectsTool('set-plan', before.name, 'business', '--json');

    expect(JSON.parse(lines[0] ?? '')).toEqual({
      name: before.name,
      plan: 'business',
      previousPlan: 'free',
      limits: PLANS.business.limits,
    });
    const after = await projects.get(before.name);
    expect(after?.plan).toBe('business');
    expect(after?.usageId).not.toBe(before.usageId);
    // During the wait the project names its new key, and the old key still works.
    expect(waits).toHaveLength(1);
    expect(duringWait?.record?.usageId).toBe(after?.usageId);
    expect(duringWait?.values).toEqual(expect.arrayContaining([before.usageId, after?.usageId]));
    // Afterwards only the new key is left, in the business usage plan.
    expect(fake.idOfValue(before.usageId)).toBeUndefined();
    expect(fake.plansOfValue(after?.usageId ?? '')).toEqual([usagePlanName(STACK, 'business')]);
    const sent = gatewayCommandsSent();
    expect(sent.indexOf('CreateUsagePlanKeyCommand')).toBeLessThan(sent.indexOf('DeleteApiKeyCommand'));
  });

  it('new enterprise numbers keep the gateway key (same usage plan)', async () => {
    const before = await createProject('enterprise', { perMinute: 100, perDay: 1000 });
    gatewayMock.resetHistory();
    await projectsTool('set-plan', before.name, 'enterprise', '--per-minute', '200', '--per-day', '2000');
    const after = await projects.get(before.name);
    expect(after).toEqual(
      expect.objectContaining({ usageId: before.usageId, agreedLimits: { perMinute: 200, perDay: 2000 } }),
    );
    expect(inputsOf(CreateApiKeyCommand)).toEqual([]);
    expect(inputsOf(DeleteApiKeyCommand)).toEqual([]);
  });

  it('refuses enterprise numbers over the ceiling without touching the gateway', async () => {
    const before = await createProject('pro');
    gatewayMock.resetHistory();
    const error = await projectsTool(
      'set-plan',
      before.name,
      'enterprise',
      '--per-minute',
      '6000',
      '--per-day',
      '6000',
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect(gatewayMock.calls()).toHaveLength(0);
    expect((await projects.get(before.name))?.plan).toBe('pro');
  });

  it('when the new usage plan refuses the key, nothing changes and no key is left behind', async () => {
    const before = await createProject('free');
    gatewayMock
      .on(CreateUsagePlanKeyCommand, { usagePlanId: fake.planId('pro') })
      .rejects(new Error('Too many requests'));
    await expect(projectsTool('set-plan', before.name, 'pro')).rejects.toThrow(
      /^Could not create a gateway key for project stage-\d+ in the pro usage plan: .*Too many requests.*Its plan is still free\.$/,
    );
    expect(await projects.get(before.name)).toEqual(before);
    expect(
      [...fake.apiKeys.values()].filter((key) => key.name === projectKeyName(STACK, before.name)),
    ).toHaveLength(1);
    expect(fake.plansOfValue(before.usageId)).toEqual([usagePlanName(STACK, 'free')]);
  });

  it('when the plan cannot be recorded, the project keeps its old key and the unused new key is deleted at once', async () => {
    const before = await createProject('free');
    const stage = await connectStage('staging', clients());
    const failing = new (class extends ProjectRepository {
      override async setPlan(): Promise<boolean> {
        throw new Error('store timed out');
      }
    })(t.documents, DEPLOYED.projects);
    let newKeyAtWait: string[] = [];
    const admin = new ProjectAdmin({
      projects: failing,
      keys: stage.keys,
      gateway: stage.gateway,
      waitForKeyCaches: async () => {
        newKeyAtWait = [...fake.apiKeys.values()].map((key) => key.value);
      },
    });
    try {
      await expect(admin.setPlan(before.name, 'pro')).rejects.toThrow(
        /^Could not record plan pro for project stage-\d+: store timed out\. Its plan is still free\. Its new gateway key was deleted again\.$/,
      );
    } finally {
      stage.close();
    }
    expect(await projects.get(before.name)).toEqual(before);
    // No authorizer ever saw the new key: nothing to wait for.
    expect(newKeyAtWait).toEqual([]);
    expect(fake.plansOfValue(before.usageId)).toEqual([usagePlanName(STACK, 'free')]);
    expect(
      [...fake.apiKeys.values()].filter((key) => key.name === projectKeyName(STACK, before.name)),
    ).toHaveLength(1);
  });

  it('carries a plan change through when the write landed although it reported a failure', async () => {
    const before = await createProject('free');
    const stage = await connectStage('staging', clients());
    const landedButTimedOut = new (class extends ProjectRepository {
      override async setPlan(...args: Parameters<ProjectRepository['setPlan']>): Promise<boolean> {
        await super.setPlan(...args);
        throw new Error('store timed out');
      }
    })(t.documents, DEPLOYED.projects);
    let waited = false;
    const admin = new ProjectAdmin({
      projects: landedButTimedOut,
      keys: stage.keys,
      gateway: stage.gateway,
      waitForKeyCaches: async () => {
        waited = true;
      },
    });
    try {
      await expect(admin.setPlan(before.name, 'pro')).resolves.toMatchObject({ from: 'free', to: 'pro' });
    } finally {
      stage.close();
    }
    const after = await projects.get(before.name);
    expect(after?.plan).toBe('pro');
    expect(waited).toBe(true);
    expect(fake.plansOfValue(after?.usageId ?? '')).toEqual([usagePlanName(STACK, 'pro')]);
    expect(fake.plansOfValue(before.usageId)).toEqual([]);
  });

  it('reports an old key it could not delete after switching (exit 1), with the plan changed', async () => {
    const before = await createProject('free');
    gatewayMock.on(DeleteApiKeyCommand).rejects(new Error('Service unavailable'));
    await expect(projectsTool('set-plan', before.name, 'pro')).rejects.toThrow(
      `The old gateway key of project ${before.name} could not be deleted from API Gateway of ${STACK} (Service unavailable): delete the key valued ${before.usageId} there.`,
    );
    expect((await projects.get(before.name))?.plan).toBe('pro');
  });

  it('refuses the free plan while the project has custom domains (the stage custom domains table)', async () => {
    const before = await createProject('pro');
    await new CustomDomainRepository(t.documents, DEPLOYED.customDomains).create({
      name: `shop.${before.name}.example`,
      project: before.name,
      role: 'primary',
      state: 'active',
      since: new Date().toISOString(),
      addedAt: new Date().toISOString(),
      attached: true,
      certificate: 'issued',
      version: 1,
    });
    gatewayMock.resetHistory();
    await expect(projectsTool('set-plan', before.name, 'free')).rejects.toThrow(/has 1 custom domain/);
    expect(gatewayMock.calls().filter((call) => !(call.args[0] instanceof CreateApiKeyCommand))).toHaveLength(
      0,
    );
  });
});

const invitation = {
  invitationId: '0123456789abcdef',
  secretHash: '0'.repeat(64),
  email: 'cy@example.com',
  role: 'viewer' as const,
  createdAt: '2026-11-26T10:00:00.000Z',
  expiresAt: '2026-12-03T10:00:00.000Z',
  state: 'pending' as const,
};

describe('projects delete --stage', () => {
  it('deletes the record and its gateway key', async () => {
    const before = await createProject('pro');
    expect(await projectsTool('delete', before.name, '--yes')).toEqual([`Deleted project ${before.name}.`]);
    expect(await projects.get(before.name)).toBeUndefined();
    expect(fake.idOfValue(before.usageId)).toBeUndefined();
  });

  it("removes the project's members from the stage's members table, and no other project's", async () => {
    const before = await createProject('pro');
    const other = await createProject('pro');
    const members = new MemberRepository(t.documents, DEPLOYED.members);
    const member = (project: string, subject: string) => ({
      project,
      issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
      subject,
      email: `${subject}@example.com`,
      role: 'owner' as const,
      addedAt: new Date().toISOString(),
    });
    await members.create(member(before.name, 'ana'));
    await members.create(member(before.name, 'bo'));
    await members.create(member(other.name, 'ana'));
    // ...and its invitations with their counter of places (issue 27).
    const invitations = new InvitationRepository(t.documents, DEPLOYED.invitations);
    await invitations.takePlace(before.name, 50);
    await invitations.create({ ...invitation, project: before.name, holdsPlace: true });
    expect(await projectsTool('delete', before.name, '--yes')).toEqual([
      `Deleted project ${before.name}.`,
      'Removed its 2 members.',
      'Removed its invitation.',
    ]);
    expect(await invitations.listOf(before.name)).toEqual([]);
    expect(await invitations.placesTaken(before.name)).toBe(0);
    expect(await members.listOf(before.name)).toEqual([]);
    expect(await members.listOf(other.name)).toHaveLength(1);
  });
});

describe('projects set-origins --stage', () => {
  it("writes the stage's projects table only: no gateway call", async () => {
    const before = await createProject('pro');
    gatewayMock.resetHistory();
    const lines = await projectsTool('set-origins', before.name, 'https://app.example.com', '--json');
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      name: before.name,
      allowedOrigins: ['https://app.example.com'],
    });
    expect((await projects.get(before.name))?.allowedOrigins).toEqual(['https://app.example.com']);
    expect(
      await new ProjectRepository(t.documents, LOCAL_TABLE_NAMES.projects).get(before.name),
    ).toBeUndefined();
    expect(gatewayCommandsSent()).toEqual([]);
  });
});

describe('keys --stage', () => {
  it('create, list and move act on the deployed tables and never call API Gateway', async () => {
    const [a, b] = [await createProject('free'), await createProject('pro')];
    gatewayMock.resetHistory();
    const run = async (...argv: string[]) => {
      const lines: string[] = [];
      await runKeysCommand([...argv, '--stage', 'staging'], {
        out: (line) => lines.push(line),
        endpoint: 'http://127.0.0.1:1',
        stageClients: clients(),
      });
      return lines;
    };
    const issued = JSON.parse((await run('create', '--project', a.name, '--json'))[0] ?? '') as {
      id: string;
    };
    expect(JSON.parse((await run('list', '--project', a.name, '--json'))[0] ?? '')).toEqual([
      expect.objectContaining({ id: issued.id, project: a.name }),
    ]);
    await run('move', issued.id, '--project', b.name);
    expect(JSON.parse((await run('list', '--project', b.name, '--json'))[0] ?? '')).toEqual([
      expect.objectContaining({ id: issued.id, project: b.name }),
    ]);
    expect(gatewayMock.calls()).toHaveLength(0);
  });
});

describe('projects migrate --stage', () => {
  it('creates legacy with its gateway key in the usage plan of the highest plan; a second run does nothing', async () => {
    await t.documents.send(
      new PutCommand({ TableName: DEPLOYED.apiKeys, Item: oldKeyItem('enterprise:example-corp') }),
    );
    await t.documents.send(new PutCommand({ TableName: DEPLOYED.pets, Item: oldPetItem(77) }));

    const lines = await projectsTool('migrate');
    expect(lines[0]).toMatch(
      /^Upgrade to projects: moved 1 API key and 1 pet from before projects into project legacy \(plan enterprise: 5000 per minute, 5000000 per day\)/,
    );
    const legacy = await projects.get('legacy');
    expect(legacy?.agreedLimits).toEqual({ perMinute: 5000, perDay: 5_000_000 });
    expect(fake.plansOfValue(legacy?.usageId ?? '')).toEqual([usagePlanName(STACK, 'enterprise')]);

    gatewayMock.resetHistory();
    expect(await projectsTool('migrate')).toEqual([
      'Nothing to migrate: every key and pet belongs to a project.',
    ]);
    expect(gatewayMock.calls().filter((call) => call.args[0] instanceof CreateApiKeyCommand)).toHaveLength(0);
  });
});

describe('connectStage', () => {
  it('refuses a stack without the projects table output', async () => {
    stacksMock.reset();
    stackWithOutputs(STACK, { [STACK_OUTPUTS.apiKeysTable]: DEPLOYED.apiKeys });
    await expect(connectStage('staging', clients())).rejects.toThrow(
      `Stack ${STACK} has no output ${STACK_OUTPUTS.projectsTable}: deploy the current version of it.`,
    );
  });

  it('without a platform domain, addresses are the execute-api base URL', async () => {
    stacksMock.reset();
    stackWithOutputs(STACK, {
      [STACK_OUTPUTS.baseUrl]: 'https://example.execute-api.eu-west-1.amazonaws.com/staging/v1',
      [STACK_OUTPUTS.apiKeysTable]: DEPLOYED.apiKeys,
      [STACK_OUTPUTS.projectsTable]: DEPLOYED.projects,
      [STACK_OUTPUTS.petsTable]: DEPLOYED.pets,
      [STACK_OUTPUTS.customDomainsTable]: DEPLOYED.customDomains,
    });
    const stage: StageConnection = await connectStage('staging', clients());
    try {
      expect(stage.addressOf('acme')).toBe('https://example.execute-api.eu-west-1.amazonaws.com/staging/v1');
      expect(await stage.domainsOf('acme')).toBe(0);
    } finally {
      stage.close();
    }
  });
});
