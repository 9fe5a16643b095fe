import { ArnFormat, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  CfnDelivery,
  CfnDeliveryDestination,
  CfnDeliverySource,
  type ILogGroup,
  LogGroup,
  type RetentionDays,
} from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** Properties of {@link EdgeAccessLogs}. */
export interface EdgeAccessLogsProps {
  /** ARN of the distribution whose access logs are delivered. */
  readonly distributionArn: string;
  /** How long the log group keeps them. */
  readonly retention: RetentionDays;
  /** What happens to the log group when the stack deletes it. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The distribution's access logs, through CloudFront standard logging v2 into a CloudWatch
 * Logs group. Multi-tenant distributions do not support legacy standard logging (the S3
 * bucket with ACLs enabled), and v2 records each request's distribution tenant.
 */
export class EdgeAccessLogs extends Construct {
  /** The log group the access logs are delivered to. */
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: EdgeAccessLogsProps) {
    super(scope, id);
    const name = `${Stack.of(this).stackName}-access-logs`;
    this.logGroup = new LogGroup(this, 'LogGroup', {
      // Vended logs: the /aws/vendedlogs/ prefix keeps the log group resource policy small.
      logGroupName: `/aws/vendedlogs/cloudfront/${name}`,
      retention: props.retention,
      removalPolicy: props.removalPolicy,
    });
    deliverAccessLogs(this, '', { name, distributionArn: props.distributionArn, logGroup: this.logGroup });
  }
}

/**
 * Standard logging v2 of a distribution into a log group (CloudFront has no L2 for it): a
 * delivery source named `name`, a JSON destination on the group, and the delivery between.
 * `idPrefix` keeps the three construct ids apart when a scope delivers more than one.
 */
export function deliverAccessLogs(
  scope: Construct,
  idPrefix: string,
  { name, distributionArn, logGroup }: { name: string; distributionArn: string; logGroup: ILogGroup },
): void {
  const source = new CfnDeliverySource(scope, `${idPrefix}Source`, {
    name,
    logType: 'ACCESS_LOGS',
    resourceArn: distributionArn,
  });
  const destination = new CfnDeliveryDestination(scope, `${idPrefix}Destination`, {
    name,
    // The group's own ARN, without the `:*` of its Arn attribute.
    destinationResourceArn: Stack.of(scope).formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: logGroup.logGroupName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
    outputFormat: 'json',
  });
  const delivery = new CfnDelivery(scope, `${idPrefix}Delivery`, {
    deliverySourceName: name,
    deliveryDestinationArn: destination.attrArn,
  });
  delivery.node.addDependency(source);
}
