import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { API_VERSION_PREFIX, methodsByPath, type OperationId, ROUTES } from '../../../lambda/api/routes';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { AnimalStoreStack } from '../../../lib/animal-store-stack';
import { environmentConfigs } from '../../../lib/config/environments';
import { synthEnvironment } from '../../support/synth';
import {
  actionsOf,
  apiMethods,
  authorizerFunctionId,
  environmentOf,
  operationFunctionId,
  resourcesOfType,
  roleIdOfFunction,
  statementsOfFunction,
  tableIdFromOutput,
} from '../template-queries';

const template = synthEnvironment('staging');
const petsTable = tableIdFromOutput(template, 'PetsTableName');
const apiKeysTable = tableIdFromOutput(template, 'ApiKeysTableName');
const authorizerId = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::Authorizer'))[0];
const operationMethods = apiMethods(template).filter((method) => method.props.HttpMethod !== 'ANY');

interface IntegrationResponse {
  StatusCode: string;
  SelectionPattern?: string;
  ResponseParameters: Record<string, string>;
  ResponseTemplates: Record<string, string>;
}

const tableArn = (tableId: string) => ({ 'Fn::GetAtt': [tableId, 'Arn'] });
const indexArns = (tableId: string) => ({ 'Fn::Join': ['', [tableArn(tableId), '/index/*']] });

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
      expect(method.path.startsWith(`${API_VERSION_PREFIX}/`)).toBe(true);
    }
  });
});

describe('405 for other methods on a known path', () => {
  const anyMethods = apiMethods(template).filter((method) => method.props.HttpMethod === 'ANY');

  test('there is one ANY method per distinct path', () => {
    expect(anyMethods).toHaveLength(methodsByPath(ROUTES).size);
  });

  test.each([...methodsByPath(ROUTES)])('%s answers 405 with Allow: its methods', (path, methods) => {
    const method = anyMethods.find((candidate) => candidate.path === `${API_VERSION_PREFIX}${path}`);
    expect(method?.props).toMatchObject({
      AuthorizationType: 'NONE',
      ApiKeyRequired: false,
      MethodResponses: [{ StatusCode: '405' }],
      Integration: { Type: 'MOCK', PassthroughBehavior: 'NEVER' },
    });
    const integration = method?.props.Integration as { IntegrationResponses: IntegrationResponse[] };
    expect(integration.IntegrationResponses).toHaveLength(1);
    const response = integration.IntegrationResponses[0] as IntegrationResponse;
    expect(response.SelectionPattern).toBeUndefined();
    expect(response.StatusCode).toBe('405');
    expect(response.ResponseParameters).toEqual({
      'method.response.header.Allow': `'${methods.join(', ')}'`,
      'method.response.header.Content-Type': "'application/json'",
    });
    expect(JSON.parse(response.ResponseTemplates['application/json'] ?? '')).toEqual({
      code: 'method_not_allowed',
      message: expect.stringContaining('not allowed'),
      status: 405,
    });
  });

  test('the mock has a request template for JSON and common other content types', () => {
    for (const method of anyMethods) {
      const templates = (method.props.Integration as { RequestTemplates: Record<string, string> })
        .RequestTemplates;
      expect(Object.keys(templates)).toEqual(
        expect.arrayContaining(['application/json', 'text/plain', 'application/x-www-form-urlencoded']),
      );
      for (const requestTemplate of Object.values(templates)) {
        expect(JSON.parse(requestTemplate)).toEqual({ statusCode: 200 });
      }
    }
  });
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
  const expected: [string, () => string, string, unknown][] = [
    ['listPets', () => operationFunctionId(template, 'listPets'), 'dynamodb:Query', indexArns(petsTable)],
    ['getPet', () => operationFunctionId(template, 'getPet'), 'dynamodb:GetItem', tableArn(petsTable)],
    ['createPet', () => operationFunctionId(template, 'createPet'), 'dynamodb:PutItem', tableArn(petsTable)],
    ['authorizer', () => authorizerFunctionId(template), 'dynamodb:GetItem', tableArn(apiKeysTable)],
  ];

  test('every route is covered by the expectations below', () => {
    const operations = expected.map(([name]) => name).filter((name) => name !== 'authorizer');
    expect(operations.sort()).toEqual(ROUTES.map((route) => route.operationId as string).sort());
  });

  test.each(expected)('%s may perform %s on its resource', (_, functionId, action, resourceArn) => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: roleIdOfFunction(template, functionId()) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Action: action, Resource: resourceArn }),
        ]),
      },
    });
  });

  test.each(expected)(
    '%s has no DynamoDB access besides %s on that resource',
    (_, functionId, action, resourceArn) => {
      const dynamodb = statementsOfFunction(template, functionId()).filter((statement) =>
        actionsOf(statement).some((a) => a.startsWith('dynamodb:')),
      );
      expect(dynamodb).toEqual([{ Effect: 'Allow', Action: action, Resource: resourceArn }]);
    },
  );

  test.each(expected)('%s has no wildcard action and no wildcard resource except X-Ray', (_, functionId) => {
    for (const statement of statementsOfFunction(template, functionId())) {
      for (const action of actionsOf(statement)) expect(action).not.toContain('*');
      if (statement.Resource === '*') {
        expect(actionsOf(statement).every((action) => action.startsWith('xray:'))).toBe(true);
      }
    }
  });

  test('no function may Scan, write keys or write pets except createPet', () => {
    const createPet = operationFunctionId(template, 'createPet');
    for (const [, functionId] of expected) {
      const actions = statementsOfFunction(template, functionId()).flatMap(actionsOf);
      expect(actions).not.toContain('dynamodb:Scan');
      expect(actions).not.toContain('dynamodb:UpdateItem');
      expect(actions).not.toContain('dynamodb:DeleteItem');
      if (functionId() !== createPet) expect(actions).not.toContain('dynamodb:PutItem');
    }
  });
});

describe('environment variables', () => {
  const fn = (operationId: OperationId) =>
    environmentOf(template, operationFunctionId(template, operationId));

  test('every operation learns the pets table name', () => {
    for (const route of ROUTES) {
      expect(fn(route.operationId)[RUNTIME_ENV.petsTable]).toEqual({ Ref: petsTable });
    }
  });

  test('listPets gets a 256-bit hex cursor key; the other operations get none', () => {
    expect(fn('listPets')[RUNTIME_ENV.cursorKey]).toMatch(/^[0-9a-f]{64}$/);
    expect(fn('createPet')[RUNTIME_ENV.cursorKey]).toBeUndefined();
    expect(fn('getPet')[RUNTIME_ENV.cursorKey]).toBeUndefined();
  });

  test('the cursor key is the same on every synth and differs between environments', () => {
    const config = environmentConfigs({}).staging;
    const again = Template.fromStack(
      new AnimalStoreStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), config.stackName, {
        config,
      }),
    );
    const production = synthEnvironment('production');
    const key = (t: Template) => environmentOf(t, operationFunctionId(t, 'listPets'))[RUNTIME_ENV.cursorKey];
    expect(key(again)).toBe(key(template));
    expect(key(production)).not.toBe(key(template));
  });

  test('the authorizer learns the API keys table and its cache duration, and no pets table', () => {
    expect(environmentOf(template, authorizerFunctionId(template))).toEqual({
      [RUNTIME_ENV.apiKeysTable]: { Ref: apiKeysTable },
      [RUNTIME_ENV.apiKeyCacheSeconds]: '30',
    });
  });
});
