import { createHash } from 'node:crypto';
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  ApiKeySourceType,
  AuthorizationType,
  type CfnAuthorizer,
  EndpointType,
  type JsonSchema,
  LambdaIntegration,
  MockIntegration,
  Model,
  PassthroughBehavior,
  RequestAuthorizer,
  RequestValidator,
  type Resource,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { errorBodyJson, methodNotAllowedMessage } from '../../lambda/api/gateway-errors';
import { gatewayModel, MODEL_CONTENT_TYPE } from '../../lambda/api/gateway-models';
import {
  API_VERSION_PREFIX,
  AUTHORIZER_MODULE,
  type HttpMethod,
  methodsByPath,
  type OperationId,
  type Route,
  ROUTES,
} from '../../lambda/api/routes';
import { ENVIRONMENT_VARIABLE } from '../../lambda/shared/observability';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { PETS_TABLE } from '../../lambda/store/table-schema';
import { ApiFunction } from './api-function';
import { ApiStageLogs } from './api-stage-logs';
import type { DataTables } from './data-tables';
import { GatewayErrorResponses } from './gateway-responses';

/** What an operation's wiring may use besides its function. */
interface WiringContext {
  readonly tables: DataTables;
  readonly cursorKey: string;
}

/**
 * Each operation's table access and settings, declared next to where its function is
 * wired. Keyed by every OperationId, so a route added without its grant does not compile.
 */
const WIRE_OPERATION: Readonly<Record<OperationId, (fn: ApiFunction, context: WiringContext) => void>> = {
  listPets: (fn, { tables, cursorKey }) => {
    fn.bindTable({
      table: tables.pets,
      environmentVariable: RUNTIME_ENV.petsTable,
      actions: ['dynamodb:Query'],
      // Lists by status on one index, all pets on the other.
      target: { indexes: PETS_TABLE.globalIndexes.map((index) => index.indexName) },
    });
    fn.addEnvironment(RUNTIME_ENV.cursorKey, cursorKey);
  },
  createPet: (fn, { tables }) =>
    fn.bindTable({
      table: tables.pets,
      environmentVariable: RUNTIME_ENV.petsTable,
      actions: ['dynamodb:PutItem'],
      target: 'table',
    }),
  getPet: (fn, { tables }) =>
    fn.bindTable({
      table: tables.pets,
      environmentVariable: RUNTIME_ENV.petsTable,
      actions: ['dynamodb:GetItem'],
      target: 'table',
    }),
  // Serves the bundled OpenAPI document: no table of its own, only the rate limits.
  getOpenApi: () => undefined,
};

/**
 * Every operation runs the rate limiter (lambda/middleware/api-handler.ts) before its
 * handler: it counts with a conditional UpdateItem and reads the counter with GetItem.
 */
function bindRateLimits(fn: ApiFunction, tables: DataTables): void {
  fn.bindTable({
    table: tables.rateLimits,
    environmentVariable: RUNTIME_ENV.rateLimitsTable,
    actions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    target: 'table',
  });
}

/**
 * Content types the 405 mock has a request template for. A mock integration needs its
 * template's `{"statusCode": ...}` output: a passed-through body makes it fail with 500,
 * so unlisted types are refused (415) rather than passed through (see the passthrough
 * behaviour below). Requests without a Content-Type count as application/json.
 */
const MOCK_CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/octet-stream',
  'application/xml',
  'text/xml',
  'text/html',
] as const;

/** Properties of {@link AnimalStoreApi}. */
export interface AnimalStoreApiProps {
  /** API Gateway stage name, the environment name. */
  readonly stageName: string;
  /** Environment name, which every function reports as the `Environment` dimension of its metrics. */
  readonly environmentName: string;
  /** The tables the functions use. */
  readonly tables: DataTables;
  /** Seconds the authorizer caches an API key lookup. */
  readonly apiKeyCacheSeconds: number;
  /**
   * Memory of every function, in MB.
   * @default 512
   */
  readonly lambdaMemoryMb?: number;
  /**
   * Retention of every function's log group and of the stage's access and execution logs.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log groups when they leave the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The REST API: one Lambda-backed method per route of the route table under `/v1`, all
 * behind the API key authorizer, a 405 answer for every other method on a known path,
 * and the spec's Error body for everything API Gateway refuses on its own.
 */
export class AnimalStoreApi extends Construct {
  /** The REST API. */
  public readonly restApi: RestApi;
  /** The REQUEST authorizer's function. */
  public readonly authorizerFunction: ApiFunction;
  /** One function per operation of the route table. */
  public readonly operationFunctions: ReadonlyMap<OperationId, ApiFunction>;
  /** The stage's access and execution logs. */
  public readonly logs: ApiStageLogs;

  constructor(scope: Construct, id: string, props: AnimalStoreApiProps) {
    super(scope, id);
    const functionDefaults = {
      memorySize: props.lambdaMemoryMb,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    };
    const environment = { [ENVIRONMENT_VARIABLE]: props.environmentName };

    this.logs = new ApiStageLogs(this, 'StageLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `${Stack.of(this).stackName}-api`,
      description: 'Animal Store Service',
      endpointTypes: [EndpointType.REGIONAL],
      // Keys are checked by the authorizer, which returns the caller's usage identifier.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // The logging role is an account-wide singleton (AWS::ApiGateway::Account) that both
      // environments would fight over: ApiGatewayAccountStack owns it.
      cloudWatchRole: false,
      deployOptions: { stageName: props.stageName, tracingEnabled: true, ...this.logs.stageOptions },
    });
    this.logs.addExecutionLogs(this.restApi, props.stageName);
    // Its default output is the stage root without the version prefix; the stack outputs baseUrl.
    this.restApi.node.tryRemoveChild('Endpoint');
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers are programs holding API keys, not users: the REQUEST authorizer checks the bearer key against ' +
        'the keys table. There are no user identities for a Cognito user pool to hold.',
    });

    this.authorizerFunction = new ApiFunction(this, 'AuthorizerFunction', {
      ...functionDefaults,
      handlerModule: AUTHORIZER_MODULE,
      description: 'REQUEST authorizer: looks up the bearer API key',
      environment: { ...environment, [RUNTIME_ENV.apiKeyCacheSeconds]: String(props.apiKeyCacheSeconds) },
    });
    this.authorizerFunction.bindTable({
      table: props.tables.apiKeys,
      environmentVariable: RUNTIME_ENV.apiKeysTable,
      actions: ['dynamodb:GetItem'],
      target: 'table',
    });
    // No identity sources and no result cache, on purpose: API Gateway would answer a
    // request lacking an identity source itself, with a bare 401. The authorizer instead
    // always allows, passing an anonymous principal, so the operation answers 401 with
    // rate-limit headers; it caches key lookups in memory instead.
    const authorizer = new RequestAuthorizer(this, 'Authorizer', {
      handler: this.authorizerFunction,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    // CDK writes an empty IdentitySource string; leave the property out altogether.
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    // The gateway refuses what it can before a function runs (400 with the Error body, from
    // the BAD_REQUEST_* gateway responses); the handlers still check everything themselves.
    const validators = {
      body: new RequestValidator(this, 'BodyValidator', {
        restApi: this.restApi,
        validateRequestBody: true,
        validateRequestParameters: true,
      }),
      parameters: new RequestValidator(this, 'ParameterValidator', {
        restApi: this.restApi,
        validateRequestBody: false,
        validateRequestParameters: true,
      }),
    };

    const context: WiringContext = { tables: props.tables, cursorKey: this.cursorKey() };
    const functions = new Map<OperationId, ApiFunction>();
    for (const route of ROUTES) {
      const fn = new ApiFunction(this, `${pascalCase(route.operationId)}Function`, {
        ...functionDefaults,
        handlerModule: route.handlerModule,
        description: `${route.method} ${API_VERSION_PREFIX}${route.path} (${route.operationId})`,
        environment,
      });
      bindRateLimits(fn, props.tables);
      WIRE_OPERATION[route.operationId](fn, context);
      functions.set(route.operationId, fn);
      this.resourceFor(route.path).addMethod(
        route.method,
        new LambdaIntegration(fn, { proxy: true, allowTestInvoke: false }),
        {
          operationName: route.operationId,
          authorizer,
          authorizationType: AuthorizationType.CUSTOM,
          apiKeyRequired: true,
          requestValidator: route.requestBody ? validators.body : validators.parameters,
          requestParameters: requestParametersOf(route),
          ...(route.requestBody
            ? { requestModels: { [MODEL_CONTENT_TYPE]: this.modelFor(route.requestBody) } }
            : {}),
        },
      );
    }
    this.operationFunctions = functions;

    for (const [path, methods] of methodsByPath(ROUTES)) {
      this.addMethodNotAllowed(this.resourceFor(path), methods);
    }

    new GatewayErrorResponses(this, 'GatewayResponses', { restApi: this.restApi });
  }

  /** The spec's base URL of this stage, ending in the version prefix (`.../<stage>/v1`). */
  get baseUrl(): string {
    return this.restApi.urlForPath(API_VERSION_PREFIX);
  }

  private readonly models = new Map<string, Model>();

  /** The API Gateway model of a request body (draft 4, converted from the shared schema), made once per name. */
  private modelFor(body: NonNullable<Route['requestBody']>): Model {
    let model = this.models.get(body.name);
    if (!model) {
      model = new Model(this, `${body.name}Model`, {
        restApi: this.restApi,
        modelName: body.name,
        contentType: MODEL_CONTENT_TYPE,
        // Already JSON Schema as API Gateway reads it (`$schema` and all); CDK passes unknown keys on.
        schema: gatewayModel(body) as JsonSchema,
      });
      this.models.set(body.name, model);
    }
    return model;
  }

  private resourceFor(path: string): Resource {
    return this.restApi.root.resourceForPath(`${API_VERSION_PREFIX}${path}`);
  }

  /**
   * Key that authenticates pagination cursors against corruption. Forging a cursor gains
   * nothing (it only selects a page the caller may list anyway): integrity, not a secret,
   * so a value derived at synth time is enough and stays stable across deployments.
   */
  private cursorKey(): string {
    return createHash('sha256')
      .update(`${Stack.of(this).stackName}/${this.node.addr}`)
      .digest('hex');
  }

  /** `ANY` on a known path: methods declared on the resource take precedence, the rest get 405. */
  private addMethodNotAllowed(resource: Resource, methods: readonly HttpMethod[]): void {
    const allow = methods.join(', ');
    const body = errorBodyJson('method_not_allowed', methodNotAllowedMessage(allow));
    const headers = {
      'method.response.header.Allow': `'${allow}'`,
      'method.response.header.Content-Type': "'application/json'",
    };
    const method = resource.addMethod(
      'ANY',
      new MockIntegration({
        // NEVER, not WHEN_NO_MATCH: a passed-through body is no `{"statusCode": ...}`, so
        // the mock would fail with a 500; an unlisted content type gets a clean 415 instead.
        passthroughBehavior: PassthroughBehavior.NEVER,
        requestTemplates: Object.fromEntries(MOCK_CONTENT_TYPES.map((type) => [type, '{"statusCode": 200}'])),
        integrationResponses: [
          { statusCode: '405', responseParameters: headers, responseTemplates: { 'application/json': body } },
        ],
      }),
      {
        authorizationType: AuthorizationType.NONE,
        apiKeyRequired: false,
        methodResponses: [
          {
            statusCode: '405',
            responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [name, true])),
          },
        ],
      },
    );
    // The answer is the same fixed 405 for everyone; an authorizer would only add a Lambda
    // invocation per refused request, and nothing behind the mock reads data.
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Method-not-allowed mock: answers a fixed 405 Error body from API Gateway itself, reaches no function ' +
        'and no data, so there is nothing to authorize; an authorizer would only add an invocation per refusal.',
    });
  }
}

/**
 * The parameters a method declares: its path parameters (required) and the query
 * parameters of the route table (optional). API Gateway only checks that required ones
 * are present and not blank; what a value may be is checked by the handler.
 */
function requestParametersOf(route: Route): Record<string, boolean> {
  const parameters: Record<string, boolean> = {};
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) parameters[`method.request.path.${name}`] = true;
  for (const name of route.queryParameters) parameters[`method.request.querystring.${name}`] = false;
  return parameters;
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
