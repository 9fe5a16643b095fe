import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  TooManyRequestsException,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { PetRepository } from '../../lambda/store/pet-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { projectKeyName } from '../../lib/config/usage-plan-names';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { runSmoke } from '../../tools/smoke';
import { SMOKE_CHECKS } from '../../tools/smoke-checks';
import { FakeGateway, gatewayMock, inputsOf, stackWithOutputs, stacksMock } from './fake-gateway';

/**
 * `npm run smoke -- --stage staging`, in process: the stack's outputs and API Gateway answer as
 * documented (mocked at the SDK boundary), while its tables and its base URL are local mode's, so
 * the checks run over real HTTP against the real handlers. Staging has no platform domain and no
 * console: those checks are skipped, with the reason, and do not fail the run.
 */

const STACK = 'AnimalStore-staging';

let api: LocalApi;
let documents: ReturnType<typeof createDocumentClient>;
let fake: FakeGateway;

beforeAll(async () => {
  api = await startLocalApi({ port: 0, dynamodbPort: 0 });
  documents = createDocumentClient(api.dynamodbEndpoint);
});
afterAll(async () => {
  documents.destroy();
  await api.close();
});

beforeEach(() => {
  gatewayMock.reset();
  stacksMock.reset();
  stackWithOutputs(STACK, {
    [STACK_OUTPUTS.baseUrl]: api.baseUrl,
    [STACK_OUTPUTS.apiKeysTable]: LOCAL_TABLE_NAMES.apiKeys,
    [STACK_OUTPUTS.projectsTable]: LOCAL_TABLE_NAMES.projects,
    [STACK_OUTPUTS.petsTable]: LOCAL_TABLE_NAMES.pets,
    [STACK_OUTPUTS.customDomainsTable]: LOCAL_TABLE_NAMES.customDomains,
  });
  fake = new FakeGateway(STACK);
  fake.install();
});

const clients = () => ({
  cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
  edgeCloudFormation: new CloudFormationClient({ region: 'us-east-1' }),
  apiGateway: new APIGatewayClient({ region: 'eu-west-1' }),
  documents,
});

describe('npm run smoke -- --stage staging', () => {
  it('finds the base URL in the stack, skips what staging lacks, and removes the project and its gateway key', async () => {
    const out: string[] = [];
    const code = await runSmoke(['--stage', 'staging'], {
      out: (line) => out.push(line),
      stageClients: clients(),
    });

    const project = /as throwaway project (smoke-[0-9a-f]+)/.exec(out[0] ?? '')?.[1] ?? '';
    expect(out[0]).toBe(`Smoke test of ${api.baseUrl} as throwaway project ${project} (free plan)`);
    const skipped = {
      'project address': `${STACK} has no platform domain (output ${STACK_OUTPUTS.platformDomain})`,
      'CORS preflight': `${STACK} has no platform domain (output ${STACK_OUTPUTS.platformDomain}); preflights are answered at a project's address`,
      'console page security headers':
        'the console comes with the edge stack, which serves only an environment with a platform domain',
      'console API 401':
        'the console comes with the edge stack, which serves only an environment with a platform domain',
    } as Record<string, string>;
    expect(out.slice(1, 1 + SMOKE_CHECKS.length)).toEqual(
      SMOKE_CHECKS.map(({ name }) =>
        name in skipped ? `SKIP  ${name}: ${skipped[name]}` : expect.stringMatching(`^PASS  ${name}: `),
      ),
    );
    expect(out.slice(-2)).toEqual([
      `Cleaned up: project ${project}, its key and its pets are gone.`,
      `${SMOKE_CHECKS.length - 4} passed, 0 failed, 4 skipped.`,
    ]);
    expect(code).toBe(0);

    // The project's gateway key went into the Free usage plan, and is gone again.
    const [created] = inputsOf(CreateApiKeyCommand);
    expect(created?.name).toBe(projectKeyName(STACK, project));
    expect(inputsOf(CreateUsagePlanKeyCommand)).toEqual([
      expect.objectContaining({ usagePlanId: fake.planId('free') }),
    ]);
    expect(inputsOf(DeleteApiKeyCommand)).toHaveLength(1);
    expect(fake.apiKeys.size).toBe(0);
    // Staging has no platform domain: the edge stack is not asked for a console.
    expect(
      stacksMock.commandCalls(DescribeStacksCommand).map((call) => call.args[0].input.StackName),
    ).not.toContain('AnimalStore-edge');

    expect(await new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects).get(project)).toBeUndefined();
    expect(await new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys).listByProject(project)).toEqual(
      [],
    );
    expect(
      (await new PetRepository(documents, LOCAL_TABLE_NAMES.pets).list(project, { limit: 10 })).pets,
    ).toEqual([]);
  }, 60_000);

  it('says what it could not remove, and how, and exits 1 even when every check passed', async () => {
    // API Gateway refuses to delete the project's key: the project goes, its gateway key stays.
    gatewayMock
      .on(DeleteApiKeyCommand)
      .rejects(new TooManyRequestsException({ message: 'Too Many Requests', $metadata: {} }));
    const out: string[] = [];
    const code = await runSmoke(['--stage', 'staging'], {
      out: (line) => out.push(line),
      stageClients: clients(),
    });
    const project = /as throwaway project (smoke-[0-9a-f]+)/.exec(out[0] ?? '')?.[1] ?? '';
    const usageId = [...fake.apiKeys.values()][0]?.value;
    expect(out.slice(-2)).toEqual([
      `Cleanup incomplete, remove by hand: Project ${project} is deleted, but its gateway key could not be deleted from API Gateway of ${STACK} (Too Many Requests): delete the key valued ${usageId} there.`,
      `${SMOKE_CHECKS.length - 4} passed, 0 failed, 4 skipped.`,
    ]);
    expect(code).toBe(1);
    // The revoked key's record stays, so no later project can take the name while the gateway key is left.
    const keys = await new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys).listByProject(project);
    expect(keys).toEqual([expect.objectContaining({ revokedAt: expect.any(String) })]);
  }, 60_000);

  it('says in one line when the stack is not there, and creates nothing', async () => {
    stacksMock.reset();
    stacksMock
      .on(DescribeStacksCommand)
      .rejects(
        Object.assign(new Error(`Stack with id ${STACK} does not exist`), { name: 'ValidationError' }),
      );
    const out: string[] = [];
    const run = runSmoke(['--stage', 'staging'], {
      out: (line) => out.push(line),
      stageClients: clients(),
    });
    await expect(run).rejects.toThrow(
      `Stack ${STACK} does not exist in this account and region: deploy it, or set AWS_REGION / AWS_PROFILE to where it is.`,
    );
    expect(out).toEqual([]);
    expect(inputsOf(CreateApiKeyCommand)).toEqual([]);
  });
});
