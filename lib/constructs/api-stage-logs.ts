import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type RestApi,
  type StageOptions,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/**
 * One JSON object per request in the access log, with what an operator needs to follow a
 * request (ids, caller, route, outcome, timings, authorizer and WAF verdicts, the gateway's
 * own error). Left out on purpose: the Authorization header (it carries the API key) and
 * `$context.identity.apiKey` / `apiKeyId` (the usage identifier API Gateway meters by).
 * Every value is a JSON string except `errorMessage`: `messageString` is already quoted
 * and escaped by API Gateway, so the line stays valid JSON whatever the message says.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  xrayTraceId: '$context.xrayTraceId',
  ip: '$context.identity.sourceIp',
  caller: '$context.identity.caller',
  userAgent: '$context.identity.userAgent',
  requestTime: '$context.requestTime',
  requestTimeEpoch: '$context.requestTimeEpoch',
  domainName: '$context.domainName',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integration.latency',
  integrationStatus: '$context.integration.status',
  integrationError: '$context.integration.error',
  authorizerPrincipalId: '$context.authorizer.principalId',
  authorizerError: '$context.authorizer.error',
  authorizerLatency: '$context.authorizer.latency',
  wafResponseCode: '$context.wafResponseCode',
  errorMessage: '$context.error.messageString',
  responseType: '$context.error.responseType',
} as const;

/** Placeholders API Gateway writes as ready-made JSON values (quoted and escaped). */
const PRE_QUOTED = new Set<string>(['$context.error.messageString']);

/** The access log line template: {@link ACCESS_LOG_FIELDS} as one JSON object. */
export function accessLogTemplate(fields: Readonly<Record<string, string>> = ACCESS_LOG_FIELDS): string {
  const members = Object.entries(fields).map(
    ([name, value]) => `${JSON.stringify(name)}:${PRE_QUOTED.has(value) ? value : JSON.stringify(value)}`,
  );
  return `{${members.join(',')}}`;
}

/** Properties of {@link ApiStageLogs}. */
export interface ApiStageLogsProps {
  /**
   * Retention of the access and execution log groups.
   * @default RetentionDays.ONE_MONTH
   */
  readonly retention?: RetentionDays;
  /**
   * What happens to the log groups when they leave the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The logs of one API stage: JSON access logs in a log group of their own, and execution
 * logs at ERROR level (never request or response bodies, which would hold the API key)
 * in the log group API Gateway would otherwise create without a retention.
 *
 * Both need the account's API Gateway CloudWatch role (see ApiGatewayAccountStack).
 * Create it before the REST API, pass {@link stageOptions} in its deployOptions, then call
 * {@link addExecutionLogs} with the stage name.
 */
export class ApiStageLogs extends Construct {
  /** The access log group. */
  public readonly accessLogs: LogGroup;
  /** Stage options that turn on both logs; spread them into the REST API's deployOptions. */
  public readonly stageOptions: Pick<
    StageOptions,
    'accessLogDestination' | 'accessLogFormat' | 'loggingLevel' | 'dataTraceEnabled'
  >;

  private readonly props: ApiStageLogsProps;

  constructor(scope: Construct, id: string, props: ApiStageLogsProps = {}) {
    super(scope, id);
    this.props = props;
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.retention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.stageOptions = {
      accessLogDestination: new LogGroupLogDestination(this.accessLogs),
      accessLogFormat: AccessLogFormat.custom(accessLogTemplate()),
      loggingLevel: MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
    };
  }

  /**
   * The execution log group under the name API Gateway writes to, with the retention;
   * the stage waits for it, so API Gateway never creates it first (never expiring).
   */
  addExecutionLogs(restApi: RestApi, stageName: string): LogGroup {
    const group = new LogGroup(this, 'ExecutionLogs', {
      // The stage's name as configured, not its Ref: the stage depends on this group.
      logGroupName: `API-Gateway-Execution-Logs_${restApi.restApiId}/${stageName}`,
      retention: this.props.retention ?? RetentionDays.ONE_MONTH,
      removalPolicy: this.props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    restApi.deploymentStage.node.addDependency(group);
    return group;
  }
}
