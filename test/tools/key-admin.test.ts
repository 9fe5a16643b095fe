import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { issueApiKey } from '../../lambda/core/api-key';
import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { MAX_ACTIVE_KEYS_PER_PROJECT, type Revocation } from '../../lambda/core/project-keys';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { API_KEYS_TABLE, PETS_TABLE, PROJECTS_TABLE } from '../../lambda/store/table-schema';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { UsageError } from '../../tools/failures';
import { KeyAdmin } from '../../tools/key-admin';
import { runKeysCommand } from '../../tools/keys';
import { connectStage } from '../../tools/stage';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { everythingSentToAws, gatewayMock, stackWithOutputs, stacksMock } from './fake-gateway';

const STACK = 'AnimalStore-staging';
/** Deployed table names, unlike the local ones, so a test can tell which table was used. */
const DEPLOYED = {
  apiKeys: 'AnimalStore-staging-DataApiKeysTable1A2B3C-XYZ',
  projects: 'AnimalStore-staging-DataProjectsTable1A2B3C-XYZ',
  pets: 'AnimalStore-staging-DataPetsTable1A2B3C-XYZ',
};

let t: TestStore;
let keys: ApiKeyRepository;
let projects: ProjectRepository;
let admin: KeyAdmin;

async function createProject(name: string): Promise<void> {
  const now = new Date().toISOString();
  await projects.create({
    name,
    plan: 'pro',
    createdAt: now,
    consoleTokenHash: issueConsoleToken(name).hash,
    consoleTokenIssuedAt: now,
    usageId: newUsageId(),
  });
}

beforeAll(async () => {
  t = await startTestStore();
  await t.createTable(API_KEYS_TABLE, DEPLOYED.apiKeys);
  await t.createTable(PROJECTS_TABLE, DEPLOYED.projects);
  await t.createTable(PETS_TABLE, DEPLOYED.pets);
  keys = new ApiKeyRepository(t.documents, DEPLOYED.apiKeys);
  projects = new ProjectRepository(t.documents, DEPLOYED.projects);
  admin = new KeyAdmin({ keys, projects });
  await createProject('acme');
  await createProject('globex');
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
  });
});

const clients = () => ({
  cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
  apiGateway: new APIGatewayClient({ region: 'eu-west-1' }),
  documents: t.documents,
});

describe('KeyAdmin', () => {
  it('create: a key of an existing project; an unknown project is refused and nothing is stored', async () => {
    const { record } = await admin.create('acme', 'robot');
    expect(await keys.get(record.keyId)).toEqual(record);
    expect(record.project).toBe('acme');

    const before = await keys.list();
    await expect(admin.create('nosuch', 'x')).rejects.toThrow(UsageError);
    expect(await keys.list()).toEqual(before);
  });

  it('rotate: a new key of the same project and name; the old one revoked', async () => {
    const old = await admin.create('globex', 'rotating robot');
    const rotated = await admin.rotate(old.record.keyId);
    expect(rotated.record).toEqual(expect.objectContaining({ project: 'globex', name: 'rotating robot' }));
    expect(rotated.record.keyId).not.toBe(old.record.keyId);
    expect((await keys.get(old.record.keyId))?.revokedAt).toEqual(expect.any(String));
    expect((await keys.get(rotated.record.keyId))?.revokedAt).toBeUndefined();
  });

  it('rotate withdraws the new key when the old one cannot be revoked, so the old key keeps working alone', async () => {
    const old = await admin.create('acme', 'kept');
    const failing = new (class extends ApiKeyRepository {
      override async revoke(keyId: string, revokedAt: Date, replacedBy?: string): Promise<Revocation> {
        if (keyId === old.record.keyId) throw new Error('store timed out');
        return super.revoke(keyId, revokedAt, replacedBy);
      }
    })(t.documents, DEPLOYED.apiKeys);

    await expect(new KeyAdmin({ keys: failing, projects }).rotate(old.record.keyId)).rejects.toThrow(
      /^Could not revoke key [a-z2-7]{16}: store timed out\. The new key [a-z2-7]{16} was withdrawn\. Key [a-z2-7]{16} still works\.$/,
    );
    // The new key was never shown: it is gone, and the old one is the project's only 'kept' key.
    expect((await keys.list()).filter((record) => record.name === 'kept')).toEqual([
      expect.objectContaining({ keyId: old.record.keyId }),
    ]);
    expect((await keys.get(old.record.keyId))?.revokedAt).toBeUndefined();
  });

  it('move, rotate refuse a revoked key; move to the same project is a no-op', async () => {
    const { record } = await admin.create('acme', 'gone');
    expect(await admin.move(record.keyId, 'acme')).toEqual({ keyId: record.keyId, from: 'acme', to: 'acme' });
    await admin.revoke(record.keyId);
    await expect(admin.move(record.keyId, 'globex')).rejects.toThrow(/was revoked at .*it cannot be moved/);
    await expect(admin.rotate(record.keyId)).rejects.toThrow(/was revoked at .*cannot be rotated/);
    expect((await keys.get(record.keyId))?.project).toBe('acme');
  });

  it('rotate, 6 at once: one new key; the others are refused naming it and leave no key behind', async () => {
    await createProject('rotor');
    const old = await admin.create('rotor', 'raced');
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => admin.rotate(old.record.keyId)));

    const won = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(won).toHaveLength(1);
    const replacement = won[0]?.record.keyId ?? '';
    for (const result of results.filter((one) => one.status === 'rejected')) {
      expect(result.reason).toBeInstanceOf(UsageError);
      expect(String(result.reason)).toContain(`was replaced by key ${replacement} (rotated)`);
    }
    const listed = await admin.list('rotor');
    expect(listed).toHaveLength(2);
    expect(listed.filter((key) => !key.revokedAt).map((key) => key.keyId)).toEqual([replacement]);
    expect(listed.find((key) => key.keyId === old.record.keyId)?.replacedBy).toBe(replacement);
  });

  it('create and move refuse a project with 100 active keys; a revocation frees a place', async () => {
    await createProject('crowded');
    // The first 99 as 99 creates leave them (each key stored, the project's count at 99), written
    // at once: 300 round trips of the same create ran past the test's limit on a busy machine.
    // The 100th goes through the create under test.
    const seeded = Array.from({ length: MAX_ACTIVE_KEYS_PER_PROJECT - 1 }, (_, index) =>
      issueApiKey('crowded', `key ${index}`, new Date()),
    );
    await Promise.all(seeded.map(({ record }) => keys.put(record)));
    expect(await projects.startKeyCount('crowded', seeded.length)).toBe(true);
    const made = [...seeded, await admin.create('crowded', `key ${seeded.length}`)];
    const full = /^Project crowded has 100 active keys, the most a project may have: revoke one first/;
    await expect(admin.create('crowded', 'one more')).rejects.toThrow(full);
    const outsider = await admin.create('acme', 'moving in');
    await expect(admin.move(outsider.record.keyId, 'crowded')).rejects.toThrow(full);
    expect((await keys.get(outsider.record.keyId))?.project).toBe('acme');

    await admin.revoke(made[0]?.record.keyId ?? '');
    expect(await admin.move(outsider.record.keyId, 'crowded')).toMatchObject({ from: 'acme', to: 'crowded' });
    await expect(admin.create('crowded', 'one more')).rejects.toThrow(full);
    expect((await projects.get('crowded'))?.activeKeys).toBe(100);
  });

  it('the count stays the number of active keys through rotations, revocations and creates at once', async () => {
    await createProject('busy');
    const activeNow = async () => (await admin.list('busy')).filter((key) => !key.revokedAt).length;
    for (let round = 0; round < 5; round++) {
      const [a, b, c] = [
        await admin.create('busy', 'a'),
        await admin.create('busy', 'b'),
        await admin.create('busy', 'c'),
      ];
      const ids = [a, b, c].map((issued) => issued.record.keyId);
      await Promise.allSettled([
        admin.rotate(ids[0] ?? ''),
        admin.rotate(ids[0] ?? ''),
        admin.revoke(ids[0] ?? ''),
        admin.revoke(ids[1] ?? ''),
        admin.revoke(ids[1] ?? ''),
        admin.rotate(ids[2] ?? ''),
        admin.revoke(ids[2] ?? ''),
        admin.create('busy', 'd'),
      ]);
      expect((await projects.get('busy'))?.activeKeys).toBe(await activeNow());
    }
  });

  it("list: every key, or one project's", async () => {
    const { record } = await admin.create('globex', 'listed');
    expect((await admin.list('globex')).map((key) => key.keyId)).toContain(record.keyId);
    expect((await admin.list('acme')).map((key) => key.keyId)).not.toContain(record.keyId);
    expect((await admin.list()).map((key) => key.keyId)).toContain(record.keyId);
    await expect(admin.list('nosuch')).rejects.toThrow(/No project is named nosuch/);
  });
});

describe('connectStage', () => {
  it('reads the table names from the DescribeStacks outputs of the environment stack', async () => {
    const stage = await connectStage('staging', clients());
    try {
      expect(stacksMock.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({ StackName: STACK });
      expect(stage.tableName).toBe(DEPLOYED.apiKeys);
      const { record } = await new KeyAdmin(stage).create('acme', 'table check');
      expect(await keys.get(record.keyId)).toEqual(record);
      expect(
        await new ApiKeyRepository(t.documents, LOCAL_TABLE_NAMES.apiKeys).get(record.keyId),
      ).toBeUndefined();
    } finally {
      stage.close();
    }
  });

  it.each([
    [
      'missing credentials',
      Object.assign(new Error('Could not load credentials from any providers'), {
        name: 'CredentialsProviderError',
      }),
      /^No usable AWS credentials to reach AnimalStore-staging: .*AWS_ACCESS_KEY_ID/,
    ],
    ['a missing region', new Error('Region is missing'), /^No AWS region .*set AWS_REGION/],
    [
      'a missing stack',
      Object.assign(new Error('Stack with id AnimalStore-staging does not exist'), {
        name: 'ValidationError',
      }),
      /^Stack AnimalStore-staging does not exist .*deploy it/,
    ],
  ])('explains %s in one line', async (_case, error, message) => {
    stacksMock.reset();
    stacksMock.on(DescribeStacksCommand).rejects(error);
    const failure = connectStage('staging', clients());
    await expect(failure).rejects.toThrow(message);
    await expect(failure).rejects.toThrow(/^[^\n]+$/);
  });

  it('refuses a stack without the keys table output', async () => {
    stacksMock.reset();
    stackWithOutputs('AnimalStore-production', { [STACK_OUTPUTS.petsTable]: 'AnimalStore-production-Pets' });
    await expect(connectStage('production', clients())).rejects.toThrow(
      `Stack AnimalStore-production has no output ${STACK_OUTPUTS.apiKeysTable}`,
    );
  });
});

describe('npm run keys -- --stage', () => {
  it('create --stage staging --json issues the key through the stack tables, with no gateway call', async () => {
    const lines: string[] = [];
    await runKeysCommand(['create', '--project', 'acme', '--name', 'cli', '--stage', 'staging', '--json'], {
      out: (line) => lines.push(line),
      endpoint: 'http://127.0.0.1:1',
      stageClients: clients(),
    });

    expect(lines).toHaveLength(1);
    const issued = JSON.parse(lines[0] ?? '') as { id: string; apiKey: string; project: string };
    expect(issued).toEqual({ id: expect.any(String), apiKey: expect.any(String), project: 'acme' });
    expect((await keys.get(issued.id))?.name).toBe('cli');
    expect(gatewayMock.calls()).toHaveLength(0);
    expect(everythingSentToAws()).not.toContain(issued.apiKey);
  });
});
