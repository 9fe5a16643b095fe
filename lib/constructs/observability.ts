import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { emailAlarmTopic } from './alarm-topic';
import type { OperationId } from '../../lambda/api/routes';
import { warningThreshold } from '../../lambda/core/self-service-settings';
import {
  METRIC_DIMENSIONS,
  METRICS_NAMESPACE,
  SELF_SERVICE_METRIC,
  SERVICE_METRICS,
} from '../../lambda/shared/observability';
import type { TableDefinition } from '../../lambda/store/table-schema';

/** Window of every alarm's datapoints. */
export const ALARM_PERIOD = Duration.minutes(5);

/** The alarms' thresholds; each is breached when the metric is above it (at or above for counts). */
export const ALARM_THRESHOLDS = {
  /** Share of requests answered 5xx by the stage (API Gateway `5XXError`, average): 1 %. */
  apiServerErrorRate: 0.01,
  /** p99 of the stage's `Latency` in ms: 2 s, against a target well under 1 s. */
  apiLatencyP99Ms: 2_000,
  /** Failed invocations (`Errors`) of one function: any. Handlers answer errors themselves, so these are crashes and timeouts. */
  functionErrors: 1,
  /** Throttled invocations (`Throttles`) of one function: any, for functions without a reserved concurrency. */
  functionThrottles: 1,
  /** Throttled reads and writes on one table and its indexes: any, since on-demand tables should not throttle. */
  tableThrottles: 1,
} as const;

/** A table with its definition (for its index names). */
export interface ObservedTable {
  readonly definition: TableDefinition;
  readonly table: Table;
}

/** Properties of {@link Observability}. */
export interface ObservabilityProps {
  /** Environment name: the `Environment` dimension of the service's metrics. */
  readonly environmentName: string;
  /** The API stage. */
  readonly stage: Stage;
  /** The operations, each with its function (the `Operation` dimension). */
  readonly operations: ReadonlyMap<OperationId, IFunction>;
  /** Every other function to watch (the authorizer), by a name for alarm names and legends. */
  readonly otherFunctions: ReadonlyMap<string, IFunction>;
  /**
   * Functions whose throttles are expected, alarmed on errors only (the catch-all, where the
   * environment reserves concurrency for it: the reservation caps it under junk floods, by design).
   * @default none
   */
  readonly errorOnlyFunctions?: ReadonlyMap<string, IFunction>;
  /** The tables to watch. */
  readonly tables: readonly ObservedTable[];
  /**
   * The platform's cap of people's own projects, where self-service is on: an alarm once their
   * count reaches the warning share (the console publishes it from there), to raise it in time.
   * @default no alarm
   */
  readonly selfServiceProjectCap?: number;
  /**
   * Email address notified of alarms through a topic this construct creates.
   * @default no topic
   */
  readonly alarmEmail?: string;
  /**
   * Existing topic notified of alarms.
   * @default no topic
   */
  readonly alarmTopic?: ITopic;
  /**
   * What happens to the notification topic's KMS key when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * Alarms on what a caller notices (5xx rate and p99 latency of the stage) and on what
 * causes it (function errors and throttles, table throttles), all breaching on data
 * only (missing data is no failure), and a dashboard of those beside the service's own
 * metrics. Alarms notify a topic when one is configured.
 */
export class Observability extends Construct {
  /** Every alarm. */
  public readonly alarms: Alarm[] = [];
  /** The dashboard, named after the stack. */
  public readonly dashboard: Dashboard;
  /** The topic alarms notify, if any. */
  public readonly alarmTopic?: ITopic;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    if (props.alarmEmail !== undefined && props.alarmTopic !== undefined) {
      throw new Error(
        'Observability: give alarmEmail or alarmTopic, not both (subscribe the email to the topic).',
      );
    }
    const prefix = Stack.of(this).stackName;
    this.alarmTopic =
      props.alarmTopic ??
      (props.alarmEmail === undefined
        ? undefined
        : emailAlarmTopic(this, props.alarmEmail, props.removalPolicy));

    const serverErrors = props.stage.metricServerError({ statistic: 'Average', period: ALARM_PERIOD });
    const latencyP99 = props.stage.metricLatency({ statistic: 'p99', period: ALARM_PERIOD });
    this.alarm('ApiServerErrorRate', {
      name: `${prefix}-api-5xx-rate`,
      description: `More than ${ALARM_THRESHOLDS.apiServerErrorRate * 100}% of requests answered 5xx over 5 minutes`,
      metric: serverErrors,
      threshold: ALARM_THRESHOLDS.apiServerErrorRate,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    this.alarm('ApiLatencyP99', {
      name: `${prefix}-api-latency-p99`,
      description: `p99 latency above ${ALARM_THRESHOLDS.apiLatencyP99Ms} ms in 2 of 3 five-minute periods`,
      metric: latencyP99,
      threshold: ALARM_THRESHOLDS.apiLatencyP99Ms,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });

    const errorOnly = props.errorOnlyFunctions ?? new Map<string, IFunction>();
    const functions = new Map<string, IFunction>([
      ...props.operations,
      ...props.otherFunctions,
      ...errorOnly,
    ]);
    for (const [name, fn] of functions) {
      this.alarm(`${pascalCase(name)}Errors`, {
        name: `${prefix}-${name}-errors`,
        description: `The ${name} function failed (crash or timeout) within 5 minutes`,
        metric: fn.metricErrors({ statistic: 'Sum', period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.functionErrors,
      });
      if (errorOnly.has(name)) continue;
      this.alarm(`${pascalCase(name)}Throttles`, {
        name: `${prefix}-${name}-throttles`,
        description: `The ${name} function was throttled within 5 minutes`,
        metric: fn.metricThrottles({ statistic: 'Sum', period: ALARM_PERIOD }),
        threshold: ALARM_THRESHOLDS.functionThrottles,
      });
    }

    const tableThrottles = props.tables.map(({ definition, table }) => ({
      name: definition.logicalName,
      metric: throttleEvents(definition, table),
    }));
    for (const { name, metric } of tableThrottles) {
      this.alarm(`${name}TableThrottles`, {
        name: `${prefix}-${name}-table-throttles`,
        description: `Reads or writes on the ${name} table or its indexes were throttled within 5 minutes`,
        metric,
        threshold: ALARM_THRESHOLDS.tableThrottles,
      });
    }

    if (props.selfServiceProjectCap !== undefined) {
      const threshold = warningThreshold(props.selfServiceProjectCap);
      this.alarm('SelfServiceProjects', {
        name: `${prefix}-self-service-projects`,
        description: `People's own projects reached ${threshold} of the cap of ${props.selfServiceProjectCap}: raise selfServiceProjectCap or plan another account`,
        metric: new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: SELF_SERVICE_METRIC,
          dimensionsMap: { [METRIC_DIMENSIONS.environment]: props.environmentName },
          statistic: 'Maximum',
          period: ALARM_PERIOD,
        }),
        threshold,
      });
    }

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: prefix,
      defaultInterval: Duration.hours(3),
    });
    const service = (metricName: string, operation: string, statistic: string, label = operation) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: {
          [METRIC_DIMENSIONS.environment]: props.environmentName,
          [METRIC_DIMENSIONS.operation]: operation,
        },
        statistic,
        period: ALARM_PERIOD,
        label,
      });
    const operations = [...props.operations.keys()];
    const { environment, operation } = METRIC_DIMENSIONS;
    const search = (metricName: string, extraDimension: string, label: string) =>
      new MathExpression({
        expression:
          `SEARCH('{${METRICS_NAMESPACE},${environment},${operation},${extraDimension}} ` +
          `MetricName="${metricName}" ${environment}="${props.environmentName}"', 'Sum', ${ALARM_PERIOD.toSeconds()})`,
        usingMetrics: {},
        label,
        period: ALARM_PERIOD,
      });
    const perFunction = (metric: (fn: IFunction) => IMetric) =>
      [...functions].map(([name, fn]) => (metric(fn) as Metric).with({ label: name }));

    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API: requests and errors',
        left: [props.stage.metricCount({ statistic: 'Sum', period: ALARM_PERIOD, label: 'requests' })],
        right: [
          props.stage.metricClientError({ statistic: 'Sum', period: ALARM_PERIOD, label: '4xx' }),
          props.stage.metricServerError({ statistic: 'Sum', period: ALARM_PERIOD, label: '5xx' }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'API: 5xx rate',
        left: [serverErrors.with({ label: '5xx share' })],
        leftAnnotations: [{ value: ALARM_THRESHOLDS.apiServerErrorRate, label: 'alarm' }],
        width: 8,
      }),
      new GraphWidget({
        title: 'API: latency (ms)',
        left: [
          props.stage.metricLatency({ statistic: 'p50', period: ALARM_PERIOD, label: 'p50' }),
          latencyP99.with({ label: 'p99' }),
          props.stage.metricIntegrationLatency({
            statistic: 'p99',
            period: ALARM_PERIOD,
            label: 'integration p99',
          }),
        ],
        leftAnnotations: [{ value: ALARM_THRESHOLDS.apiLatencyP99Ms, label: 'alarm' }],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Service: requests by operation',
        left: operations.map((operation) => service(SERVICE_METRICS.requests, operation, 'Sum')),
        width: 6,
      }),
      new GraphWidget({
        title: 'Service: p99 latency by operation (ms)',
        left: operations.map((operation) => service(SERVICE_METRICS.latency, operation, 'p99')),
        width: 6,
      }),
      new GraphWidget({
        title: 'Service: errors by operation and code',
        left: [search(SERVICE_METRICS.errors, METRIC_DIMENSIONS.code, 'errors')],
        width: 6,
      }),
      new GraphWidget({
        title: 'Service: rate limited by operation and plan',
        left: [search(SERVICE_METRICS.rateLimited, METRIC_DIMENSIONS.plan, 'rate limited')],
        width: 6,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Lambda: errors',
        left: perFunction((fn) => fn.metricErrors({ statistic: 'Sum', period: ALARM_PERIOD })),
        width: 6,
      }),
      new GraphWidget({
        title: 'Lambda: throttles',
        left: perFunction((fn) => fn.metricThrottles({ statistic: 'Sum', period: ALARM_PERIOD })),
        width: 6,
      }),
      new GraphWidget({
        title: 'Lambda: p99 duration (ms)',
        left: perFunction((fn) => fn.metricDuration({ statistic: 'p99', period: ALARM_PERIOD })),
        width: 6,
      }),
      new GraphWidget({
        title: 'DynamoDB: throttled reads and writes',
        left: tableThrottles.map(({ metric }) => metric),
        width: 6,
      }),
    );
  }

  private alarm(
    id: string,
    options: {
      name: string;
      description: string;
      metric: IMetric;
      threshold: number;
      comparisonOperator?: ComparisonOperator;
      evaluationPeriods?: number;
      datapointsToAlarm?: number;
    },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmName: options.name,
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      datapointsToAlarm: options.datapointsToAlarm ?? options.evaluationPeriods ?? 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (this.alarmTopic) {
      const action = new SnsAction(this.alarmTopic);
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    this.alarms.push(alarm);
    return alarm;
  }
}

/** Read and write throttle events of a table and of each of its indexes, summed (missing counts as 0). */
function throttleEvents(definition: TableDefinition, table: Table): MathExpression {
  const usingMetrics: Record<string, IMetric> = {};
  const dimensionSets: Record<string, string>[] = [
    { TableName: table.tableName },
    ...definition.globalIndexes.map((index) => ({
      TableName: table.tableName,
      GlobalSecondaryIndexName: index.indexName,
    })),
  ];
  dimensionSets.forEach((dimensionsMap, i) => {
    for (const kind of ['Read', 'Write'] as const) {
      usingMetrics[`${definition.logicalName.toLowerCase()}${kind}${i}`] = new Metric({
        namespace: 'AWS/DynamoDB',
        metricName: `${kind}ThrottleEvents`,
        dimensionsMap,
        statistic: 'Sum',
        period: ALARM_PERIOD,
      });
    }
  });
  return new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((name) => `FILL(${name}, 0)`)
      .join(' + '),
    usingMetrics,
    label: definition.logicalName,
    period: ALARM_PERIOD,
  });
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
