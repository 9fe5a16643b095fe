import { Match, Template } from 'aws-cdk-lib/assertions';
import {
  API_VERSION_PREFIX,
  CATCH_ALL,
  catchAllPaths,
  type OperationId,
  ROUTES,
} from '../../../lambda/api/routes';
import { ENVIRONMENT_VARIABLE } from '../../../lambda/shared/observability';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { PETS_TABLE } from '../../../lambda/store/table-schema';
import { AnimalStoreStack } from '../../../lib/animal-store-stack';
import { environmentConfigs } from '../../../lib/config/environments';
import { synthEnvironment, testApp } from '../../support/synth';
import {
  actionsOf,
  apiMethods,
  authorizerFunctionId,
  environmentOf,
  invokedFunctionId,
  operationFunctionId,
  resourcesOfType,
  statementsOfFunction,
  tableIdFromOutput,
} from '../template-queries';

const template = synthEnvironment('staging');
const petsTable = tableIdFromOutput(template, 'PetsTableName');
const apiKeysTable = tableIdFromOutput(template, 'ApiKeysTableName');
const projectsTable = tableIdFromOutput(template, 'ProjectsTableName');
const rateLimitsTable = tableIdFromOutput(template, 'RateLimitsTableName');
const idempotencyTable = tableIdFromOutput(template, 'IdempotencyTableName');
const authorizerId = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::Authorizer'))[0];
const operationMethods = apiMethods(template).filter((method) => method.props.HttpMethod !== 'ANY');
const anyMethods = apiMethods(template).filter((method) => method.props.HttpMethod === 'ANY');

/** Logical id of the catch-all's function, from the greedy proxy's method. */
function catchAllFunctionId(): string {
  const proxy = anyMethods.find((m) => m.path === `${API_VERSION_PREFIX}${CATCH_ALL.proxyPath}`);
  if (!proxy) throw new Error('No ANY method on the greedy proxy');
  return invokedFunctionId((proxy.props.Integration as { Uri: unknown }).Uri);
}

const tableArn = (tableId: string) => ({ 'Fn::GetAtt': [tableId, 'Arn'] });
const indexArn = (tableId: string, indexName: string) => ({
  'Fn::Join': ['', [tableArn(tableId), `/index/${indexName}`]],
});

describe('routes', () => {
  test('there is exactly one operation method per route of the route table', () => {
    expect(operationMethods).toHaveLength(ROUTES.length);
  });

  test.each(ROUTES.map((route) => [route.operationId, route] as const))(
    '%s: method on /v1 path, API key required, behind the custom authorizer',
    (_, route) => {
      const matches = operationMethods.filter(
        (method) =>
          method.path === `${API_VERSION_PREFIX}${route.path}` && method.props.HttpMethod === route.method,
      );
      expect(matches).toHaveLength(1);
      expect(matches[0]?.props).toMatchObject({
        OperationName: route.operationId,
        ApiKeyRequired: true,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
    },
  );

  test('each operation has a function of its own', () => {
    const functions = ROUTES.map((route) => operationFunctionId(template, route.operationId));
    expect(new Set(functions).size).toBe(ROUTES.length);
    expect(functions).not.toContain(authorizerFunctionId(template));
  });

  test('nothing is served outside the version prefix', () => {
    for (const method of apiMethods(template)) {
      expect(method.path === API_VERSION_PREFIX || method.path.startsWith(`${API_VERSION_PREFIX}/`)).toBe(
        true,
      );
    }
  });
});

describe('the catch-all answers every other path and method under the prefix', () => {
  test('ANY on the prefix, on the greedy proxy under it, and on every route path; nowhere else', () => {
    expect(anyMethods.map((method) => method.path).sort()).toEqual(
      catchAllPaths()
        .map((path) => `${API_VERSION_PREFIX}${path}`)
        .sort(),
    );
    expect(anyMethods.map((method) => method.path)).toEqual(
      expect.arrayContaining([API_VERSION_PREFIX, `${API_VERSION_PREFIX}/{proxy+}`]),
    );
  });

  test('each ANY method invokes the catch-all function behind the authorizer, with a key required', () => {
    for (const method of anyMethods) {
      expect(method.props).toMatchObject({
        ApiKeyRequired: true,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      expect(invokedFunctionId((method.props.Integration as { Uri: unknown }).Uri)).toBe(
        catchAllFunctionId(),
      );
    }
  });

  test('the catch-all is a function of its own', () => {
    const others = [
      ...ROUTES.map((route) => operationFunctionId(template, route.operationId)),
      authorizerFunctionId(template),
    ];
    expect(others).not.toContain(catchAllFunctionId());
  });

  test('no method is answered by a mock: every answer under the prefix comes from a function', () => {
    for (const method of apiMethods(template)) {
      expect((method.props.Integration as { Type: string }).Type).toBe('AWS_PROXY');
    }
  });

  test('by default no function reserves concurrency: a new account with a quota of 10 can deploy', () => {
    for (const name of ['staging', 'production'] as const) {
      const reserved = Object.values(resourcesOfType(synthEnvironment(name), 'AWS::Lambda::Function')).filter(
        (fn) => fn.Properties.ReservedConcurrentExecutions !== undefined,
      );
      expect(reserved).toEqual([]);
    }
  });

  test("with the environment's reserved concurrency, the catch-all reserves it, and only the catch-all", () => {
    const reservedTemplate = synthEnvironment('staging', { reservedConcurrency: 10 });
    const reserved = Object.entries(resourcesOfType(reservedTemplate, 'AWS::Lambda::Function'))
      .filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined)
      .map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions]);
    expect(reserved).toEqual([[catchAllFunctionId(), 10]]);
  });
});

describe('no request validation at the gateway: the service validates', () => {
  test('there are no request validators and no models', () => {
    template.resourceCountIs('AWS::ApiGateway::RequestValidator', 0);
    template.resourceCountIs('AWS::ApiGateway::Model', 0);
  });

  test.each(ROUTES.map((route) => [route.operationId, route] as const))(
    '%s has no validator, model or declared parameters',
    (_, route) => {
      const method = operationMethods.find((m) => m.props.OperationName === route.operationId);
      expect(method).toBeDefined();
      for (const property of ['RequestValidatorId', 'RequestModels', 'RequestParameters']) {
        expect([property, method?.props[property]]).toEqual([property, undefined]);
      }
    },
  );
});

describe('authorizer', () => {
  test('is a REQUEST authorizer without identity sources and without result cache', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
    });
  });

  test('the API reads API keys from the authorizer and is regional', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      ApiKeySourceType: 'AUTHORIZER',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  test('API Gateway may invoke the authorizer function', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [authorizerFunctionId(template), 'Arn'] },
    });
  });
});

describe('least privilege', () => {
  /** One action on one resource, e.g. `dynamodb:GetItem` on the pets table's ARN. */
  type Grant = readonly [action: string, resource: unknown];
  const rateLimitGrants: Grant[] = [
    ['dynamodb:UpdateItem', tableArn(rateLimitsTable)],
    ['dynamodb:GetItem', tableArn(rateLimitsTable)],
  ];
  const expected: [string, () => string, Grant[]][] = [
    [
      'listPets',
      () => operationFunctionId(template, 'listPets'),
      [
        ...PETS_TABLE.globalIndexes.map((index): Grant => [
          'dynamodb:Query',
          indexArn(petsTable, index.indexName),
        ]),
        ...rateLimitGrants,
      ],
    ],
    [
      'getPet',
      () => operationFunctionId(template, 'getPet'),
      [['dynamodb:GetItem', tableArn(petsTable)], ...rateLimitGrants],
    ],
    [
      'createPet',
      () => operationFunctionId(template, 'createPet'),
      [
        ['dynamodb:PutItem', tableArn(petsTable)],
        // Idempotency-Key records: read, reserved, leased and completed.
        ['dynamodb:GetItem', tableArn(idempotencyTable)],
        ['dynamodb:PutItem', tableArn(idempotencyTable)],
        ['dynamodb:UpdateItem', tableArn(idempotencyTable)],
        ...rateLimitGrants,
      ],
    ],
    ['getOpenApi', () => operationFunctionId(template, 'getOpenApi'), rateLimitGrants],
    // Its only table is the rate-limit table: junk reaches no data.
    [CATCH_ALL.name, catchAllFunctionId, rateLimitGrants],
    // The key, then its project: item reads only.
    [
      'authorizer',
      () => authorizerFunctionId(template),
      [
        ['dynamodb:GetItem', tableArn(apiKeysTable)],
        ['dynamodb:GetItem', tableArn(projectsTable)],
      ],
    ],
  ];

  /** Every allowed DynamoDB action of a function on every resource, one entry per pair, sorted. */
  function dynamodbGrants(functionId: string): string[] {
    return statementsOfFunction(template, functionId)
      .flatMap((statement) =>
        actionsOf(statement).flatMap((action) =>
          (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]).map(
            (resource: unknown) => `${statement.Effect} ${action} on ${JSON.stringify(resource)}`,
          ),
        ),
      )
      .filter((grant) => grant.includes(' dynamodb:'))
      .sort();
  }

  const asStrings = (grants: Grant[]) =>
    grants.map(([action, resource]) => `Allow ${action} on ${JSON.stringify(resource)}`).sort();

  test('every route is covered by the expectations below', () => {
    const operations = expected
      .map(([name]) => name)
      .filter((name) => name !== 'authorizer' && name !== CATCH_ALL.name);
    expect(operations.sort()).toEqual(ROUTES.map((route) => route.operationId as string).sort());
  });

  test.each(expected)(
    '%s is allowed its actions on each resource, in one statement',
    (_, functionId, grants) => {
      const actionsByResource = new Map<string, { resource: unknown; actions: string[] }>();
      for (const [action, resource] of grants) {
        const key = JSON.stringify(resource);
        const entry = actionsByResource.get(key) ?? { resource, actions: [] };
        entry.actions.push(action);
        actionsByResource.set(key, entry);
      }
      // Resources granted the same actions share a statement (the pets indexes).
      const resourcesByActions = new Map<string, { actions: string[]; resources: unknown[] }>();
      for (const { resource, actions } of actionsByResource.values()) {
        const key = JSON.stringify(actions);
        const entry = resourcesByActions.get(key) ?? { actions, resources: [] };
        entry.resources.push(resource);
        resourcesByActions.set(key, entry);
      }
      // Compared as sets: CDK may sort a statement's actions and resources (minimizePolicies).
      const sorted = (values: unknown[]) => values.map((value) => JSON.stringify(value)).sort();
      const granted = statementsOfFunction(template, functionId())
        .filter((statement) => statement.Effect === 'Allow')
        .map((statement) => ({
          actions: sorted(actionsOf(statement)),
          resources: sorted([statement.Resource].flat()),
        }));
      for (const { actions, resources } of resourcesByActions.values()) {
        expect(granted).toContainEqual({ actions: sorted(actions), resources: sorted(resources) });
      }
    },
  );

  test.each(expected)('%s has no DynamoDB access besides those actions', (_, functionId, grants) => {
    expect(dynamodbGrants(functionId())).toEqual(asStrings(grants));
  });

  test.each(expected)('%s has no wildcard action and no wildcard resource except X-Ray', (_, functionId) => {
    for (const statement of statementsOfFunction(template, functionId())) {
      for (const action of actionsOf(statement)) expect(action).not.toContain('*');
      // Not even `index/*`: every index is granted by its own ARN.
      if (JSON.stringify(statement.Resource).includes('*')) {
        expect(statement.Resource).toBe('*');
        expect(actionsOf(statement).every((action) => action.startsWith('xray:'))).toBe(true);
      }
    }
  });

  test('the authorizer has no access to the rate-limit table', () => {
    expect(dynamodbGrants(authorizerFunctionId(template)).join('\n')).not.toContain(rateLimitsTable);
  });

  test('no function may Scan or delete; UpdateItem only counters and idempotency keys; PutItem only createPet', () => {
    const createPet = operationFunctionId(template, 'createPet');
    const grantOn = (action: string, table: string) =>
      `Allow ${action} on ${JSON.stringify(tableArn(table))}`;
    for (const [, functionId] of expected) {
      for (const grant of dynamodbGrants(functionId())) {
        expect(grant).not.toMatch(/dynamodb:(Scan|DeleteItem|BatchWriteItem) /);
        if (grant.includes('dynamodb:UpdateItem')) {
          const allowed = [grantOn('dynamodb:UpdateItem', rateLimitsTable)];
          if (functionId() === createPet) allowed.push(grantOn('dynamodb:UpdateItem', idempotencyTable));
          expect(allowed).toContain(grant);
        }
        if (grant.includes('dynamodb:PutItem')) {
          expect([functionId(), grant]).toEqual([createPet, expect.any(String)]);
          expect([
            grantOn('dynamodb:PutItem', petsTable),
            grantOn('dynamodb:PutItem', idempotencyTable),
          ]).toContain(grant);
        }
      }
    }
  });
});

describe('environment variables', () => {
  const fn = (operationId: OperationId) =>
    environmentOf(template, operationFunctionId(template, operationId));

  test('every pets operation learns the pets table name; the document server does not', () => {
    for (const route of ROUTES.filter((r) => r.operationId !== 'getOpenApi')) {
      expect(fn(route.operationId)[RUNTIME_ENV.petsTable]).toEqual({ Ref: petsTable });
    }
    expect(fn('getOpenApi')[RUNTIME_ENV.petsTable]).toBeUndefined();
  });

  test('every operation learns the rate-limit table name', () => {
    for (const route of ROUTES) {
      expect(fn(route.operationId)[RUNTIME_ENV.rateLimitsTable]).toEqual({ Ref: rateLimitsTable });
    }
  });

  test('the catch-all learns the rate-limit table and its environment, nothing else', () => {
    expect(environmentOf(template, catchAllFunctionId())).toEqual({
      [RUNTIME_ENV.rateLimitsTable]: { Ref: rateLimitsTable },
      [ENVIRONMENT_VARIABLE]: 'staging',
    });
  });

  test('listPets gets a 256-bit hex cursor key; the other operations get none', () => {
    expect(fn('listPets')[RUNTIME_ENV.cursorKey]).toMatch(/^[0-9a-f]{64}$/);
    expect(fn('createPet')[RUNTIME_ENV.cursorKey]).toBeUndefined();
    expect(fn('getPet')[RUNTIME_ENV.cursorKey]).toBeUndefined();
  });

  test('the cursor key is the same on every synth and differs between environments', () => {
    const config = environmentConfigs({}).staging;
    // A second synthesis of its own, not the run's cached one; without CDK's template validation,
    // which costs a WebAssembly compile and proves nothing about the key (test/support/synth.ts).
    const again = Template.fromStack(new AnimalStoreStack(testApp(), config.stackName, { config }));
    const production = synthEnvironment('production');
    const key = (t: Template) => environmentOf(t, operationFunctionId(t, 'listPets'))[RUNTIME_ENV.cursorKey];
    expect(key(again)).toBe(key(template));
    expect(key(production)).not.toBe(key(template));
  });

  test('the authorizer learns the API keys and projects tables, its cache duration and the keyless usage ids, nothing else', () => {
    expect(environmentOf(template, authorizerFunctionId(template))).toEqual({
      [RUNTIME_ENV.apiKeysTable]: { Ref: apiKeysTable },
      [RUNTIME_ENV.projectsTable]: { Ref: projectsTable },
      [RUNTIME_ENV.apiKeyCacheSeconds]: '30',
      [RUNTIME_ENV.anonymousUsageId]: expect.stringMatching(/^anonymous[0-9a-f]{32}$/),
      [RUNTIME_ENV.preflightUsageId]: expect.stringMatching(/^preflight[0-9a-f]{32}$/),
      [ENVIRONMENT_VARIABLE]: 'staging',
    });
  });

  test('every function names its environment, the Environment dimension of its metrics', () => {
    for (const name of ['staging', 'production'] as const) {
      const stack = synthEnvironment(name);
      for (const fn of Object.keys(resourcesOfType(stack, 'AWS::Lambda::Function'))) {
        expect(environmentOf(stack, fn)[ENVIRONMENT_VARIABLE]).toBe(name);
      }
    }
  });
});

describe('the pets table during its upgrade', () => {
  const listGrants = (t: Template) => {
    const pets = tableIdFromOutput(t, 'PetsTableName');
    return statementsOfFunction(t, operationFunctionId(t, 'listPets'))
      .filter((statement) => actionsOf(statement).includes('dynamodb:Query'))
      .flatMap((statement) => [statement.Resource].flat())
      .map((resource) => JSON.stringify(resource).replace(pets, 'Pets'))
      .sort();
  };
  const petsIndex = (name: string) => JSON.stringify(indexArn('Pets', name));
  const petsOperations = ROUTES.filter((r) => r.operationId !== 'getOpenApi').map((r) => r.operationId);

  test('done: listPets may Query the two project indexes only', () => {
    expect(listGrants(template)).toEqual(
      PETS_TABLE.globalIndexes.map((index) => petsIndex(index.indexName)).sort(),
    );
  });

  test('step 1: listPets may Query the project index only, the one that exists', () => {
    expect(listGrants(synthEnvironment('production', { petsUpgradeStep: 1 }))).toEqual([
      petsIndex('project-id-index'),
    ]);
  });

  test.each([2, 3] as const)('step %i: the two project indexes, never the former ones', (step) => {
    expect(listGrants(synthEnvironment('production', { petsUpgradeStep: step }))).toEqual(
      [petsIndex('project-id-index'), petsIndex('project-status-id-index')].sort(),
    );
  });

  test('step 1: every pets function is told the status index is missing; later steps and done: none is', () => {
    const step1 = synthEnvironment('production', { petsUpgradeStep: 1 });
    for (const operation of petsOperations) {
      expect([
        operation,
        environmentOf(step1, operationFunctionId(step1, operation))[RUNTIME_ENV.petsStatusIndex],
      ]).toEqual([operation, 'false']);
    }
    for (const t of [
      synthEnvironment('production', { petsUpgradeStep: 2 }),
      synthEnvironment('production', { petsUpgradeStep: 3 }),
      synthEnvironment('production'),
    ]) {
      for (const fn of Object.keys(resourcesOfType(t, 'AWS::Lambda::Function'))) {
        expect(environmentOf(t, fn)[RUNTIME_ENV.petsStatusIndex]).toBeUndefined();
      }
    }
  });
});

describe('project addresses', () => {
  const address = { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' };

  test('with a platform address the authorizer learns PLATFORM_DOMAIN, and gains no access', () => {
    const withAddress = synthEnvironment('production', { platformAddress: address });
    const without = synthEnvironment('production');
    const authorizer = (t: Template) => environmentOf(t, authorizerFunctionId(t));
    expect(authorizer(withAddress)[RUNTIME_ENV.platformDomain]).toBe('animalstore.example');
    expect(authorizer(without)[RUNTIME_ENV.platformDomain]).toBeUndefined();
    const grants = (t: Template) => JSON.stringify(statementsOfFunction(t, authorizerFunctionId(t)));
    expect(grants(withAddress)).toBe(grants(without));
  });

  test('no other function learns the platform domain', () => {
    const withAddress = synthEnvironment('production', { platformAddress: address });
    const others = Object.keys(resourcesOfType(withAddress, 'AWS::Lambda::Function')).filter(
      (fn) => fn !== authorizerFunctionId(withAddress),
    );
    for (const fn of others)
      expect(environmentOf(withAddress, fn)[RUNTIME_ENV.platformDomain]).toBeUndefined();
  });
});
