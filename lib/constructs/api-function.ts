import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { RuntimeEnvName } from '../../lambda/shared/runtime-env';

const REPO_ROOT = path.join(__dirname, '..', '..');
const HANDLERS_DIR = path.join(REPO_ROOT, 'lambda', 'handlers');

/** The DynamoDB actions a function can be granted: exactly the ones the repositories issue. */
export type TableAction = 'dynamodb:GetItem' | 'dynamodb:PutItem' | 'dynamodb:Query' | 'dynamodb:UpdateItem';

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
   * @default Duration.seconds(10)
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
}

/**
 * A Lambda function with the house defaults: Node.js 22 on ARM64, bundled by the local
 * esbuild (never Docker) into minified CommonJS with the AWS SDK inside, X-Ray tracing,
 * a 10 s timeout by default, an explicit log group with a retention, and a role that may write to
 * that log group only (instead of the managed AWSLambdaBasicExecutionRole, which allows
 * every log group of the account).
 */
export class ApiFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    // Siblings, not children: the log group and the role must exist before super() runs.
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
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
    super(scope, id, {
      role,
      entry: path.join(HANDLERS_DIR, `${props.handlerModule}.ts`),
      handler: props.handlerName ?? 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup,
      description: props.description,
      environment: props.environment,
      bundling: {
        forceDockerBundling: false,
        minify: true,
        target: 'node22',
        format: OutputFormat.CJS,
        // Bundle the SDK too: a pinned, tree-shaken client starts faster than the runtime's copy.
        externalModules: [],
      },
    });
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
    const { table, environmentVariable, actions, target } = binding;
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
      }),
    );
  }
}
