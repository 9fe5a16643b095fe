import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  AssetHashType,
  DockerImage,
  Duration,
  type ILocalBundling,
  RemovalPolicy,
  Validations,
} from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type BuildOptions, buildSync } from 'esbuild';
import { API_FUNCTION_TIMEOUT_SECONDS, type RuntimeEnvName } from '../../lambda/shared/runtime-env';

const REPO_ROOT = path.join(__dirname, '..', '..');
const HANDLERS_DIR = path.join(REPO_ROOT, 'lambda', 'handlers');

/**
 * How every function is bundled (and the bench measures it): minified CommonJS for Node.js 22,
 * with the AWS SDK inside, since a pinned, tree-shaken client starts faster than the runtime's copy.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  minify: true,
  external: [],
} as const satisfies BuildOptions;

/** Where the bundles of {@link bundleHandlers} would go; nothing is written there. */
const VIRTUAL_OUT_DIR = path.join(REPO_ROOT, 'cdk.out', 'handler-bundles');

let handlerBundles: ReadonlyMap<string, Uint8Array> | undefined;

/**
 * Every module under `lambda/handlers/`, bundled once per process in one esbuild call, in memory:
 * the modules share most of their code (the SDK above all), which one call parses once. Each
 * output is byte for byte what a build of that entry alone gives.
 */
function bundleHandlers(): ReadonlyMap<string, Uint8Array> {
  if (handlerBundles) return handlerBundles;
  const entries = readdirSync(HANDLERS_DIR)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ in: path.join(HANDLERS_DIR, name), out: path.basename(name, '.ts') }));
  const { outputFiles } = buildSync({
    ...BUNDLE_OPTIONS,
    external: [...BUNDLE_OPTIONS.external],
    entryPoints: entries,
    outdir: VIRTUAL_OUT_DIR,
    write: false,
    absWorkingDir: REPO_ROOT,
    logLevel: 'warning',
  });
  const byPath = new Map(outputFiles.map((file) => [file.path, file.contents]));
  handlerBundles = new Map(
    entries.map((entry) => [
      entry.in,
      byPath.get(path.join(VIRTUAL_OUT_DIR, `${entry.out}.js`)) ?? new Uint8Array(),
    ]),
  );
  return handlerBundles;
}

/**
 * Local bundling of one handler with esbuild's JS API, inside the synth process: no process per
 * function, never Docker. Its field is part of the CDK asset cache key, so each entry is staged
 * once per synth and every stack that uses it shares the asset.
 */
class HandlerBundling implements ILocalBundling {
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    const bundle = bundleHandlers().get(this.entry);
    if (!bundle?.length)
      throw new Error(`esbuild produced no bundle for ${path.relative(REPO_ROOT, this.entry)}`);
    writeFileSync(path.join(outputDir, 'index.js'), bundle);
    return true;
  }
}

/**
 * A log group for functions' logs with the house defaults (a month, kept when it leaves the
 * stack): each {@link ApiFunction}'s, and the Provider framework's, which would otherwise get
 * CDK's own (two years) or Lambda's implicit one (never expiring).
 */
export function functionLogGroup(
  scope: Construct,
  id: string,
  props: Pick<ApiFunctionProps, 'logRetention' | 'logRemovalPolicy'>,
): LogGroup {
  return new LogGroup(scope, id, {
    retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
  });
}

/** The DynamoDB actions a function can be granted: exactly the ones the repositories issue. */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:Query'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  /** A whole table's listing: the daily usage ranking's project names (never the counters). */
  | 'dynamodb:Scan';

/** A function's access to one table: the env var that names it and the actions it may perform. */
export interface TableBinding {
  /** The table the function uses. */
  readonly table: ITable;
  /** Environment variable that receives the table name. */
  readonly environmentVariable: RuntimeEnvName;
  /** The DynamoDB actions granted, each listed once; at least one. */
  readonly actions: readonly [TableAction, ...TableAction[]];
  /**
   * `table` for item operations on the base table; `{ indexes }` for a Query over the named
   * global secondary indexes, each granted by its own ARN (no `index/*` wildcard).
   */
  readonly target: 'table' | { readonly indexes: readonly string[] };
  /**
   * The partition keys the actions may touch, as IAM `StringLike` patterns (`dynamodb:LeadingKeys`),
   * where the function owns only some of a shared table's items.
   * @default every item of the target
   */
  readonly leadingKeys?: readonly [string, ...string[]];
}

/** Properties of {@link ApiFunction}. */
export interface ApiFunctionProps {
  /** Module under `lambda/handlers/` (without extension) that exports the handler. */
  readonly handlerModule: string;
  /**
   * The exported function Lambda calls.
   * @default 'handler'
   */
  readonly handlerName?: string;
  /**
   * How long one invocation may run.
   * @default Duration.seconds(API_FUNCTION_TIMEOUT_SECONDS), 10 s
   */
  readonly timeout?: Duration;
  /**
   * Memory in MB.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * Retention of the function's log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Environment variables besides those set by {@link ApiFunction.bindTable}.
   * @default none
   */
  readonly environment?: Record<string, string>;
  /**
   * Description shown in the Lambda console.
   * @default none
   */
  readonly description?: string;
  /**
   * Concurrent executions reserved for the function, which are also its ceiling.
   * @default none (the account's unreserved pool)
   */
  readonly reservedConcurrentExecutions?: number;
}

/**
 * A Lambda function with the house defaults: Node.js 22 on ARM64, bundled in-process by
 * esbuild (never Docker) into minified CommonJS with the AWS SDK inside, X-Ray tracing,
 * a 10 s timeout by default, an explicit log group with a retention, and a role that may write to
 * that log group only (instead of the managed AWSLambdaBasicExecutionRole, which allows
 * every log group of the account).
 */
export class ApiFunction extends LambdaFunction {
  /** Its module under `lambda/handlers/` (without extension), which the IAM tests analyse. */
  public readonly handlerModule: string;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    // Siblings, not children: the log group and the role must exist before super() runs.
    const logGroup = functionLogGroup(scope, `${id}Logs`, props);
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
      inlinePolicies: {
        logs: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              // The log group's Arn attribute (`...:log-group:<name>:*`) covers its streams.
              resources: [logGroup.logGroupArn],
            }),
          ],
        }),
      },
    });
    const entry = path.join(HANDLERS_DIR, `${props.handlerModule}.ts`);
    if (!existsSync(entry)) {
      throw new Error(
        `ApiFunction ${id}: ${path.relative(REPO_ROOT, entry)} does not exist; write the handler module.`,
      );
    }
    super(scope, id, {
      role,
      code: Code.fromAsset(REPO_ROOT, {
        // The hash of the bundle, not of the repository: a stack changes only when its code does.
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          local: new HandlerBundling(entry),
          // Required by the type and never used: local bundling either succeeds or fails synth.
          image: DockerImage.fromRegistry('unused-local-bundling-only'),
        },
      }),
      handler: `index.${props.handlerName ?? 'handler'}`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(API_FUNCTION_TIMEOUT_SECONDS),
      tracing: Tracing.ACTIVE,
      logGroup,
      description: props.description,
      environment: props.environment,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
    });
    this.handlerModule = props.handlerModule;
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only xray:PutTraceSegments and xray:PutTelemetryRecords, added for active tracing: X-Ray defines no resource ' +
        'types for them, so `*` is the only resource they accept.',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is a supported LTS runtime (Lambda deprecation 2027-04-30) and matches the esbuild target, ' +
        'local mode and CI; moving to the next LTS is a deliberate, tested change, not a synth-time default.',
    });
  }

  /** Tells the function a table's name and grants it exactly the listed actions on it, nothing wider. */
  bindTable(binding: TableBinding): void {
    const { table, environmentVariable, actions, target, leadingKeys } = binding;
    if (new Set(actions).size !== actions.length) {
      throw new Error(
        `bindTable for ${environmentVariable} lists an action twice (${actions.join(', ')}): list each action once.`,
      );
    }
    if (target !== 'table' && target.indexes.length === 0) {
      throw new Error(
        `bindTable for ${environmentVariable} targets indexes but names none: list the indexes the function queries.`,
      );
    }
    this.addEnvironment(environmentVariable, table.tableName);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [...actions],
        resources:
          target === 'table'
            ? [table.tableArn]
            : target.indexes.map((indexName) => `${table.tableArn}/index/${indexName}`),
        ...(leadingKeys
          ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeys] } } }
          : {}),
      }),
    );
  }
}
