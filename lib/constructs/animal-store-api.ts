import { createHash } from 'node:crypto';
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  ApiKeySourceType,
  AuthorizationType,
  type CfnAuthorizer,
  EndpointType,
  LambdaIntegration,
  type MethodOptions,
  RequestAuthorizer,
  type Resource,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  API_VERSION_PREFIX,
  AUTHORIZER_MODULE,
  CATCH_ALL,
  catchAllPaths,
  type OperationId,
  ROUTES,
} from '../../lambda/api/routes';
import { ENVIRONMENT_VARIABLE } from '../../lambda/shared/observability';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { PETS_TABLE } from '../../lambda/store/table-schema';
import { ApiFunction, type TableBinding } from './api-function';
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
    bindPets(fn, tables, {
      actions: ['dynamodb:Query'],
      // Lists by status on one index, all pets on the other: the project-scoped indexes of
      // the final table that the deployed table has (during its upgrade, not the former ones).
      target: { indexes: listIndexes(tables) },
    });
    fn.addEnvironment(RUNTIME_ENV.cursorKey, cursorKey);
  },
  createPet: (fn, { tables }) => {
    bindPets(fn, tables, { actions: ['dynamodb:PutItem'], target: 'table' });
    // Idempotency-Key records: read, reserved with a conditional put, leased and completed by updates.
    fn.bindTable({
      table: tables.idempotencyKeys,
      environmentVariable: RUNTIME_ENV.idempotencyTable,
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      target: 'table',
    });
  },
  getPet: (fn, { tables }) => bindPets(fn, tables, { actions: ['dynamodb:GetItem'], target: 'table' }),
  // Serves the bundled OpenAPI document: no table of its own, only the rate limits.
  getOpenApi: () => undefined,
};

/** The list indexes of the final pets table that the deployed pets table has. */
export function listIndexes(tables: Pick<DataTables, 'petsDefinition'>): string[] {
  const deployed = new Set(tables.petsDefinition.globalIndexes.map((index) => index.indexName));
  return PETS_TABLE.globalIndexes.map((index) => index.indexName).filter((name) => deployed.has(name));
}

/**
 * Binds the pets table; while the table lacks its project-and-status index (upgrade
 * step 1), also tells the function so, and status lists filter the project index instead.
 */
function bindPets(
  fn: ApiFunction,
  tables: DataTables,
  access: Pick<TableBinding, 'actions' | 'target'>,
): void {
  fn.bindTable({ table: tables.pets, environmentVariable: RUNTIME_ENV.petsTable, ...access });
  if (!tables.petsStatusIndex) fn.addEnvironment(RUNTIME_ENV.petsStatusIndex, 'false');
}

/**
 * Every operation runs the rate limiter (lambda/middleware/api-handler.ts) before its
 * handler: it counts with a conditional UpdateItem and reads the counter with GetItem.
 */
export function bindRateLimits(fn: ApiFunction, tables: Pick<DataTables, 'rateLimits'>): void {
  fn.bindTable({
    table: tables.rateLimits,
    environmentVariable: RUNTIME_ENV.rateLimitsTable,
    actions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    target: 'table',
  });
}

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
   * Concurrent executions reserved for the catch-all, which are also its ceiling: a flood of
   * unknown paths is throttled there (API Gateway then answers 5xx) and never takes the
   * concurrency the operations need. The authorizer, which every request runs, is not capped.
   * @default none reserved: the catch-all shares the account's unreserved concurrency
   */
  readonly catchAllReservedConcurrency?: number;
  /**
   * The platform domain whose subdomains are project addresses: the authorizer accepts on
   * `<project>.<domain>` the keys of that project only.
   * @default no project addresses
   */
  readonly platformDomain?: string;
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
 * The REST API: one Lambda-backed method per route of the route table under `/v1`, and
 * the catch-all function for every other path and method under it, all behind the API
 * key authorizer; the spec's Error body for what API Gateway refuses on its own (only
 * what cannot reach the service: see lambda/api/gateway-errors.ts).
 */
export class AnimalStoreApi extends Construct {
  /** The REST API. */
  public readonly restApi: RestApi;
  /** The REQUEST authorizer's function. */
  public readonly authorizerFunction: ApiFunction;
  /** One function per operation of the route table. */
  public readonly operationFunctions: ReadonlyMap<OperationId, ApiFunction>;
  /** The function that answers unknown paths (404) and methods (405) under `/v1`. */
  public readonly catchAllFunction: ApiFunction;
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
      id: 'AwsSolutions-APIG2',
      reason:
        'Every request under /v1 reaches a function that validates its body, parameters and path itself, so that ' +
        'each 400 names every problem and carries the rate-limit headers; a gateway validator would answer a ' +
        'fixed message without them. WAF caps the body size before any function runs.',
    });
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers are programs holding API keys, not users: the REQUEST authorizer checks the bearer key against ' +
        'the keys table. There are no user identities for a Cognito user pool to hold.',
    });

    this.authorizerFunction = new ApiFunction(this, 'AuthorizerFunction', {
      ...functionDefaults,
      handlerModule: AUTHORIZER_MODULE,
      description: 'REQUEST authorizer: looks up the bearer API key and its project',
      environment: {
        ...environment,
        [RUNTIME_ENV.apiKeyCacheSeconds]: String(props.apiKeyCacheSeconds),
        ...(props.platformDomain === undefined ? {} : { [RUNTIME_ENV.platformDomain]: props.platformDomain }),
      },
    });
    // The key, then its project (plan, agreed numbers, usage identifier): one GetItem each.
    this.authorizerFunction.bindTable({
      table: props.tables.apiKeys,
      environmentVariable: RUNTIME_ENV.apiKeysTable,
      actions: ['dynamodb:GetItem'],
      target: 'table',
    });
    this.authorizerFunction.bindTable({
      table: props.tables.projects,
      environmentVariable: RUNTIME_ENV.projectsTable,
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

    // No request validators or models: the handlers validate every body and parameter, so
    // each 400 names its problems and carries the rate-limit headers.
    const protectedMethod: MethodOptions = {
      authorizer,
      authorizationType: AuthorizationType.CUSTOM,
      apiKeyRequired: true,
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
        { ...protectedMethod, operationName: route.operationId },
      );
    }
    this.operationFunctions = functions;

    // Behind the authorizer like the operations, so that a valid key's junk counts against
    // its plan (and the usage plans' throttle applies to it too).
    this.catchAllFunction = new ApiFunction(this, `${pascalCase(CATCH_ALL.name)}Function`, {
      ...functionDefaults,
      handlerModule: CATCH_ALL.handlerModule,
      description: `Any other path or method under ${API_VERSION_PREFIX}: 404 or 405, counted`,
      environment,
      reservedConcurrentExecutions: props.catchAllReservedConcurrency,
    });
    bindRateLimits(this.catchAllFunction, props.tables);
    const catchAll = new LambdaIntegration(this.catchAllFunction, { proxy: true, allowTestInvoke: false });
    for (const path of catchAllPaths()) this.resourceFor(path).addMethod('ANY', catchAll, protectedMethod);

    new GatewayErrorResponses(this, 'GatewayResponses', { restApi: this.restApi });
  }

  /** The spec's base URL of this stage, ending in the version prefix (`.../<stage>/v1`). */
  get baseUrl(): string {
    return this.restApi.urlForPath(API_VERSION_PREFIX);
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
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
