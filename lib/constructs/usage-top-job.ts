import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENVIRONMENT_VARIABLE } from '../../lambda/shared/observability';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { USAGE_TOP_ID_PREFIX } from '../../lambda/store/table-schema';
import { ApiFunction } from './api-function';
import type { DataTables } from './data-tables';

/** The job's module under `lambda/handlers/`. */
export const USAGE_TOP_MODULE = 'usage-top';

/**
 * How long one run may take: a Scan page of project names per 1 MB, and a BatchGetItem per 100
 * projects (10,000 projects are 100 requests, a few seconds), then one PutItem.
 */
export const USAGE_TOP_TIMEOUT = Duration.minutes(2);

/** The function's description (the Lambda console shows it; tests find the function by it). */
export const USAGE_TOP_DESCRIPTION =
  'Ranks the projects that used the most on the UTC day just ended (daily)';

/** Properties of {@link UsageTopJob}. */
export interface UsageTopJobProps {
  /** The projects table (the project list) and the rate-limit table (the day counters, the `top` items). */
  readonly tables: Pick<DataTables, 'projects' | 'rateLimits'>;
  /** Environment name, the `Environment` dimension of the function's metrics. */
  readonly environmentName: string;
  /**
   * Minutes after midnight UTC the job ranks the day just ended: late enough for the refusals an
   * instance writes up to a minute late.
   * @default 15
   */
  readonly minutesAfterMidnight?: number;
  /**
   * Memory of the function, in MB.
   * @default 512 (ApiFunction's)
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
}

/**
 * The daily ranking of the busiest projects (issue 29; doc/limits.md, "The busiest projects"):
 * once a day, just after midnight UTC, a function reads every project's day counter of the day
 * that ended (by key, 100 to a BatchGetItem, over the projects table's names) and writes that
 * day's `top` item. Its role may Scan the projects table, and BatchGetItem and PutItem on the
 * rate-limit table: nothing else, never a Scan of the counters. A failed run is tried twice more
 * (a run is idempotent: it rewrites the same item).
 */
export class UsageTopJob extends Construct {
  /** The ranking function. */
  public readonly jobFunction: ApiFunction;
  /** The daily schedule that invokes it. */
  public readonly rule: Rule;

  constructor(scope: Construct, id: string, props: UsageTopJobProps) {
    super(scope, id);
    const minutes = props.minutesAfterMidnight ?? 15;
    if (!Number.isInteger(minutes) || minutes < 0 || minutes > 23 * 60 + 59) {
      throw new Error(
        `UsageTopJob ${id}: minutesAfterMidnight is ${minutes}; give whole minutes from 0 to 1439 (a time of the UTC day).`,
      );
    }
    this.jobFunction = new ApiFunction(this, 'Function', {
      handlerModule: USAGE_TOP_MODULE,
      description: USAGE_TOP_DESCRIPTION,
      timeout: USAGE_TOP_TIMEOUT,
      memorySize: props.memorySize,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      environment: { [ENVIRONMENT_VARIABLE]: props.environmentName },
    });
    // The project list: names only, from the projects table.
    this.jobFunction.bindTable({
      table: props.tables.projects,
      environmentVariable: RUNTIME_ENV.projectsTable,
      actions: ['dynamodb:Scan'],
      target: 'table',
    });
    // The day counters, read by key; and the day's `top` item, the only one it writes (the table
    // also holds the limiter's counters and self-service's places).
    this.jobFunction.bindTable({
      table: props.tables.rateLimits,
      environmentVariable: RUNTIME_ENV.rateLimitsTable,
      actions: ['dynamodb:BatchGetItem'],
      target: 'table',
    });
    this.jobFunction.bindTable({
      table: props.tables.rateLimits,
      environmentVariable: RUNTIME_ENV.rateLimitsTable,
      actions: ['dynamodb:PutItem'],
      target: 'table',
      leadingKeys: [`${USAGE_TOP_ID_PREFIX}*`],
    });
    this.rule = new Rule(this, 'Schedule', {
      description: 'Runs the daily ranking of the busiest projects',
      schedule: Schedule.cron({ minute: String(minutes % 60), hour: String(Math.floor(minutes / 60)) }),
      targets: [new LambdaTarget(this.jobFunction, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });
  }
}
