import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  type CreateApiKeyCommandInput,
  CreateUsagePlanKeyCommand,
  type CreateUsagePlanKeyCommandInput,
  DeleteApiKeyCommand,
  type DeleteApiKeyCommandInput,
  DeleteUsagePlanKeyCommand,
  type DeleteUsagePlanKeyCommandInput,
  GetApiKeysCommand,
  type GetApiKeysCommandInput,
  GetUsagePlansCommand,
  type GetUsagePlansCommandInput,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { ANONYMOUS_PLAN, type PlanName, usagePlanName } from '../../lambda/api/plans';
import { parseApiKey } from '../../lambda/domain/api-key';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { API_KEYS_TABLE } from '../../lambda/store/table-schema';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { configuredPlans, KeyAdmin } from '../../tools/key-admin';
import { UsageError } from '../../tools/failures';
import { runKeysCommand } from '../../tools/keys';
import { connectStage, type StageConnection } from '../../tools/stage';

const STACK = 'AnimalStore-staging';
/** A deployed table name, unlike the local one, so a test can tell which table was used. */
const DEPLOYED_TABLE = 'AnimalStore-staging-DataApiKeysTable1A2B3C-XYZ';

const gatewayMock = mockClient(APIGatewayClient);
const stacksMock = mockClient(CloudFormationClient);

/** API Gateway's key and usage-plan state, as the mocked commands change it. */
class FakeGateway {
  readonly apiKeys = new Map<string, { name: string; value: string; enabled: boolean }>();
  /** Usage plan id → ids of the API keys in it. */
  readonly members = new Map<string, Set<string>>();
  readonly planIds = new Map<string, string>();
  private nextId = 1;

  constructor(planNames: readonly string[]) {
    for (const name of planNames) {
      const id = `up${this.nextId++}`;
      this.planIds.set(name, id);
      this.members.set(id, new Set());
    }
  }

  planId(plan: PlanName): string {
    const id = this.planIds.get(usagePlanName(STACK, plan));
    if (!id) throw new Error(`no usage plan for ${plan}`);
    return id;
  }

  /** The usage plans (by plan) the gateway key named `keyId` is in. */
  plansOf(keyId: string): string[] {
    const apiKeyId = this.apiKeyId(keyId);
    return [...this.planIds]
      .filter(([, id]) => this.members.get(id)?.has(apiKeyId ?? ''))
      .map(([name]) => name);
  }

  apiKeyId(keyId: string): string | undefined {
    return [...this.apiKeys].find(([, key]) => key.name === keyId)?.[0];
  }

  /** Answers the mocked commands; pages of two, so that every caller must follow `position`. */
  install(): void {
    gatewayMock.on(GetUsagePlansCommand).callsFake((input: GetUsagePlansCommandInput) => {
      const items = [...this.planIds].map(([name, id]) => ({ id, name }));
      return page(items, input.position);
    });
    gatewayMock.on(GetApiKeysCommand).callsFake((input: GetApiKeysCommandInput) => {
      const items = [...this.apiKeys]
        .filter(([, key]) => key.name.startsWith(input.nameQuery ?? ''))
        .map(([id, { name, enabled }]) => ({ id, name, enabled }));
      return page(items, input.position);
    });
    gatewayMock.on(CreateApiKeyCommand).callsFake((input: CreateApiKeyCommandInput) => {
      const id = `ak${this.nextId++}`;
      this.apiKeys.set(id, {
        name: input.name ?? '',
        value: input.value ?? '',
        enabled: input.enabled ?? false,
      });
      return { id, name: input.name };
    });
    gatewayMock.on(DeleteApiKeyCommand).callsFake(({ apiKey = '' }: DeleteApiKeyCommandInput) => {
      if (!this.apiKeys.delete(apiKey)) throw notFound();
      for (const members of this.members.values()) members.delete(apiKey);
      return {};
    });
    gatewayMock
      .on(CreateUsagePlanKeyCommand)
      .callsFake(({ usagePlanId = '', keyId = '' }: CreateUsagePlanKeyCommandInput) => {
        const members = this.members.get(usagePlanId);
        if (!members || !this.apiKeys.has(keyId)) throw notFound();
        if (members.has(keyId)) throw new ConflictException({ message: 'already a member', $metadata: {} });
        members.add(keyId);
        return { id: keyId, type: 'API_KEY' };
      });
    gatewayMock
      .on(DeleteUsagePlanKeyCommand)
      .callsFake(({ usagePlanId = '', keyId = '' }: DeleteUsagePlanKeyCommandInput) => {
        if (!this.members.get(usagePlanId)?.delete(keyId)) throw notFound();
        return {};
      });
  }
}

function page<T>(items: T[], position: string | undefined) {
  const start = Number(position ?? 0);
  const next = start + 2;
  return { items: items.slice(start, next), ...(next < items.length ? { position: String(next) } : {}) };
}

function notFound() {
  return new NotFoundException({ message: 'Invalid API Key identifier specified', $metadata: {} });
}

function inputsOf<T extends object>(command: abstract new (...args: never) => { readonly input: T }): T[] {
  return gatewayMock.commandCalls(command as never).map((call) => call.args[0].input as T);
}

/** Every input sent to API Gateway and CloudFormation, as text. */
function everythingSentToAws(): string {
  return JSON.stringify([...gatewayMock.calls(), ...stacksMock.calls()].map((call) => call.args[0].input));
}

/** The secret of a key, split off by the parser the authorizer uses: secrets may contain `_` and `-`. */
function secretOf(apiKey: string): string {
  const secret = parseApiKey(apiKey)?.secret;
  if (!secret) throw new Error(`not an API key: ${apiKey}`);
  return secret;
}

let t: TestStore;
let fake: FakeGateway;
let stage: StageConnection;
let admin: KeyAdmin;

beforeAll(async () => {
  t = await startTestStore();
  await t.createTable(API_KEYS_TABLE, DEPLOYED_TABLE);
});
afterAll(() => t.close());

beforeEach(async () => {
  gatewayMock.reset();
  stacksMock.reset();
  stacksMock.on(DescribeStacksCommand, { StackName: STACK }).resolves({
    Stacks: [
      {
        StackName: STACK,
        CreationTime: new Date(),
        StackStatus: 'UPDATE_COMPLETE',
        Outputs: [
          {
            OutputKey: 'BaseUrl',
            OutputValue: 'https://example.execute-api.eu-west-1.amazonaws.com/staging/v1',
          },
          { OutputKey: 'ApiKeysTableName', OutputValue: DEPLOYED_TABLE },
        ],
      },
    ],
  });
  // Every usage plan the stack deploys, plus another stack's, which must be left alone.
  fake = new FakeGateway([
    usagePlanName('AnimalStore-production', 'free'),
    usagePlanName(STACK, ANONYMOUS_PLAN),
    ...configuredPlans().map((plan) => usagePlanName(STACK, plan)),
  ]);
  fake.install();
  stage = await connectStage('staging', {
    cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
    apiGateway: new APIGatewayClient({ region: 'eu-west-1' }),
    documents: t.documents,
  });
  admin = new KeyAdmin({ keys: stage.keys, gateway: stage.gateway });
});
afterEach(() => stage.close());

describe('connectStage', () => {
  it('reads the keys table name from the DescribeStacks outputs of the environment stack', async () => {
    expect(stacksMock.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({ StackName: STACK });
    expect(stage.tableName).toBe(DEPLOYED_TABLE);
    const { record } = await admin.create('free', 'table check');
    expect(await new ApiKeyRepository(t.documents, DEPLOYED_TABLE).get(record.keyId)).toEqual(record);
    expect(
      await new ApiKeyRepository(t.documents, LOCAL_TABLE_NAMES.apiKeys).get(record.keyId),
    ).toBeUndefined();
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
    const failure = connectStage('staging', {
      cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
      documents: t.documents,
    });
    await expect(failure).rejects.toThrow(message);
    await expect(failure).rejects.toThrow(/^[^\n]+$/);
  });

  it('refuses a stack without the keys table output', async () => {
    stacksMock.reset();
    stacksMock.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'AnimalStore-production',
          CreationTime: new Date(),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: [{ OutputKey: 'PetsTableName', OutputValue: 'AnimalStore-production-Pets' }],
        },
      ],
    });
    await expect(
      connectStage('production', { cloudFormation: new CloudFormationClient({}), documents: t.documents }),
    ).rejects.toThrow('Stack AnimalStore-production has no output ApiKeysTableName');
  });
});

describe('KeyAdmin on a deployed stage', () => {
  it('create: CreateApiKey named by the key id, valued by the usage id, then into the usage plan of its plan', async () => {
    const { apiKey, record } = await admin.create('enterprise:example-corp', 'big customer');

    expect(inputsOf(CreateApiKeyCommand)).toEqual([
      { name: record.keyId, value: record.usageId, enabled: true },
    ]);
    const apiKeyId = fake.apiKeyId(record.keyId);
    expect(inputsOf(CreateUsagePlanKeyCommand)).toEqual([
      { usagePlanId: fake.planId('enterprise:example-corp'), keyId: apiKeyId, keyType: 'API_KEY' },
    ]);
    expect(fake.plansOf(record.keyId)).toEqual([usagePlanName(STACK, 'enterprise:example-corp')]);
    expect(await stage.keys.get(record.keyId)).toEqual(record);
    expect(everythingSentToAws()).not.toContain(secretOf(apiKey));
    expect(everythingSentToAws()).not.toContain(record.secretHash);
  });

  it('revoke: revokes the record and deletes its gateway key', async () => {
    const { record } = await admin.create('pro', 'leaver');
    const apiKeyId = fake.apiKeyId(record.keyId);

    expect(await admin.revoke(record.keyId)).toEqual({ keyId: record.keyId, incomplete: undefined });

    expect(inputsOf(DeleteApiKeyCommand)).toEqual([{ apiKey: apiKeyId }]);
    expect(fake.apiKeys.size).toBe(0);
    expect((await stage.keys.get(record.keyId))?.revokedAt).toEqual(expect.any(String));
  });

  it('rotate: a new gateway key in the same usage plan, the old one deleted, the secret never sent', async () => {
    const old = await admin.create('business', 'rotating robot');
    const oldApiKeyId = fake.apiKeyId(old.record.keyId);

    const rotated = await admin.rotate(old.record.keyId);

    expect(rotated.replaces).toBe(old.record.keyId);
    expect(await stage.keys.get(rotated.record.keyId)).toEqual(
      expect.not.objectContaining({ revokedAt: expect.anything() }),
    );
    expect(rotated.record).toEqual(expect.objectContaining({ plan: 'business', name: 'rotating robot' }));
    expect(rotated.record.keyId).not.toBe(old.record.keyId);
    expect(rotated.record.usageId).not.toBe(old.record.usageId);
    expect(inputsOf(CreateApiKeyCommand)[1]).toEqual({
      name: rotated.record.keyId,
      value: rotated.record.usageId,
      enabled: true,
    });
    expect(fake.plansOf(rotated.record.keyId)).toEqual([usagePlanName(STACK, 'business')]);
    expect(inputsOf(DeleteApiKeyCommand)).toEqual([{ apiKey: oldApiKeyId }]);
    expect((await stage.keys.get(old.record.keyId))?.revokedAt).toEqual(expect.any(String));
    expect(everythingSentToAws()).not.toContain(secretOf(rotated.apiKey));
    expect(everythingSentToAws()).not.toContain(secretOf(old.apiKey));
  });

  it('set-plan: DeleteUsagePlanKey from the old usage plan, then CreateUsagePlanKey into the new one', async () => {
    const { record } = await admin.create('free', 'upgrader');
    const apiKeyId = fake.apiKeyId(record.keyId);
    gatewayMock.resetHistory();

    expect(await admin.setPlan(record.keyId, 'pro')).toEqual({
      keyId: record.keyId,
      from: 'free',
      to: 'pro',
    });

    expect(inputsOf(DeleteUsagePlanKeyCommand)).toEqual([
      { usagePlanId: fake.planId('free'), keyId: apiKeyId },
    ]);
    expect(inputsOf(CreateUsagePlanKeyCommand)).toEqual([
      { usagePlanId: fake.planId('pro'), keyId: apiKeyId, keyType: 'API_KEY' },
    ]);
    const sent = gatewayMock.calls().map((call) => call.args[0].constructor.name);
    expect(sent.indexOf('DeleteUsagePlanKeyCommand')).toBeLessThan(sent.indexOf('CreateUsagePlanKeyCommand'));
    expect(fake.plansOf(record.keyId)).toEqual([usagePlanName(STACK, 'pro')]);
    expect((await stage.keys.get(record.keyId))?.plan).toBe('pro');
  });

  it('a failed CreateUsagePlanKey deletes the new gateway key again and stores no record', async () => {
    gatewayMock.on(CreateUsagePlanKeyCommand).rejects(new Error('Rate exceeded'));
    const before = await stage.keys.list();

    await expect(admin.create('pro', 'unlucky')).rejects.toThrow(
      /^Could not create the gateway key of a new key in API Gateway of AnimalStore-staging: could not add it to usage plan AnimalStore-staging-pro \(Rate exceeded\)\. No key was issued\.$/,
    );

    const created = gatewayMock.commandCalls(CreateApiKeyCommand)[0];
    const createdId = (await created?.returnValue)?.id;
    expect(inputsOf(DeleteApiKeyCommand)).toEqual([{ apiKey: createdId }]);
    expect(fake.apiKeys.size).toBe(0);
    expect(await stage.keys.list()).toEqual(before);
  });

  it('a record that cannot be stored deletes its gateway key again', async () => {
    const missingTable = new KeyAdmin({
      keys: new ApiKeyRepository(t.documents, 'no-such-table'),
      gateway: stage.gateway,
    });

    await expect(missingTable.create('free', 'nowhere')).rejects.toThrow(
      /^Could not store the new key [a-z2-7]{16}: .*Its gateway key was deleted again; no key was issued\.$/,
    );

    expect(gatewayMock.commandCalls(DeleteApiKeyCommand)).toHaveLength(1);
    expect(fake.apiKeys.size).toBe(0);
  });

  it('a plan without a deployed usage plan fails before any gateway key is made', async () => {
    fake.planIds.delete(usagePlanName(STACK, 'business'));

    await expect(admin.create('business', 'too early')).rejects.toThrow(
      'AnimalStore-staging has no usage plan named AnimalStore-staging-business',
    );
    expect(gatewayMock.commandCalls(CreateApiKeyCommand)).toHaveLength(0);
  });

  it('set-plan puts the key back into its old usage plan when the new one refuses it, and keeps the record', async () => {
    const { record } = await admin.create('free', 'stuck');
    gatewayMock
      .on(CreateUsagePlanKeyCommand, { usagePlanId: fake.planId('pro') })
      .rejects(new Error('Too many requests'));

    await expect(admin.setPlan(record.keyId, 'pro')).rejects.toThrow(
      /Could not move key [a-z2-7]{16} to plan pro .*Too many requests.*Its plan is still free\.$/,
    );

    expect(fake.plansOf(record.keyId)).toEqual([usagePlanName(STACK, 'free')]);
    expect((await stage.keys.get(record.keyId))?.plan).toBe('free');
  });

  it('set-plan and rotate refuse a revoked key without touching the gateway', async () => {
    const { record } = await admin.create('free', 'gone');
    await admin.revoke(record.keyId);
    gatewayMock.resetHistory();

    await expect(admin.setPlan(record.keyId, 'pro')).rejects.toThrow(UsageError);
    await expect(admin.setPlan(record.keyId, 'pro')).rejects.toThrow(
      /was revoked at .*its plan cannot change/,
    );
    await expect(admin.rotate(record.keyId)).rejects.toThrow(/was revoked at .*cannot be rotated/);
    expect(gatewayMock.calls()).toHaveLength(0);
  });

  it('rotate withdraws the new key when the old one cannot be revoked, so the old key keeps working alone', async () => {
    const old = await admin.create('pro', 'kept');
    const failing = new (class extends ApiKeyRepository {
      override async revoke(keyId: string, revokedAt: Date): Promise<boolean> {
        if (keyId === old.record.keyId) throw new Error('store timed out');
        return super.revoke(keyId, revokedAt);
      }
    })(t.documents, DEPLOYED_TABLE);

    const rotation = new KeyAdmin({ keys: failing, gateway: stage.gateway }).rotate(old.record.keyId);

    await expect(rotation).rejects.toThrow(
      /^Could not revoke key [a-z2-7]{16}: store timed out\. The new key [a-z2-7]{16} was withdrawn\. Key [a-z2-7]{16} still works\.$/,
    );
    const withdrawn = (await stage.keys.list()).find(
      (record) => record.name === 'kept' && record.keyId !== old.record.keyId,
    );
    expect(withdrawn?.revokedAt).toEqual(expect.any(String));
    expect(fake.apiKeyId(withdrawn?.keyId ?? '')).toBeUndefined();
    expect((await stage.keys.get(old.record.keyId))?.revokedAt).toBeUndefined();
    expect(fake.plansOf(old.record.keyId)).toEqual([usagePlanName(STACK, 'pro')]);
  });

  it('set-plan moves the gateway key back when the record cannot be updated', async () => {
    const { record } = await admin.create('free', 'unrecorded');
    const failing = new (class extends ApiKeyRepository {
      override async setPlan(): Promise<boolean> {
        throw new Error('store timed out');
      }
    })(t.documents, DEPLOYED_TABLE);

    await expect(
      new KeyAdmin({ keys: failing, gateway: stage.gateway }).setPlan(record.keyId, 'business'),
    ).rejects.toThrow(/store timed out\. Its gateway key was moved back; its plan is still free\.$/);

    expect(fake.plansOf(record.keyId)).toEqual([usagePlanName(STACK, 'free')]);
    expect((await stage.keys.get(record.keyId))?.plan).toBe('free');
  });

  it('revoke reports a gateway key it could not delete, and a second revoke finishes the job', async () => {
    const { record } = await admin.create('free', 'sticky');
    gatewayMock.on(DeleteApiKeyCommand).rejectsOnce(new Error('Service unavailable'));

    const first = await admin.revoke(record.keyId);

    expect(first.incomplete).toMatch(
      /^Key [a-z2-7]{16} is revoked, but its gateway key could not be deleted .*Service unavailable.*run revoke [a-z2-7]{16} again/,
    );
    expect((await stage.keys.get(record.keyId))?.revokedAt).toEqual(expect.any(String));
    expect(fake.apiKeyId(record.keyId)).toBeDefined();

    fake.install();
    expect((await admin.revoke(record.keyId)).incomplete).toBeUndefined();
    expect(fake.apiKeyId(record.keyId)).toBeUndefined();
  });
});

describe('npm run keys -- --stage', () => {
  it('create --stage staging --json issues the key through the stack table and gateway', async () => {
    const lines: string[] = [];
    await runKeysCommand(['create', '--plan', 'pro', '--name', 'cli', '--stage', 'staging', '--json'], {
      out: (line) => lines.push(line),
      endpoint: 'http://127.0.0.1:1',
      tableName: LOCAL_TABLE_NAMES.apiKeys,
      stageClients: {
        cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
        apiGateway: new APIGatewayClient({ region: 'eu-west-1' }),
        documents: t.documents,
      },
    });

    expect(lines).toHaveLength(1);
    const issued = JSON.parse(lines[0] ?? '') as { id: string; apiKey: string; plan: string };
    expect(issued.plan).toBe('pro');
    expect(fake.plansOf(issued.id)).toEqual([usagePlanName(STACK, 'pro')]);
    expect((await new ApiKeyRepository(t.documents, DEPLOYED_TABLE).get(issued.id))?.plan).toBe('pro');
    expect(everythingSentToAws()).not.toContain(secretOf(issued.apiKey));
  });
});
