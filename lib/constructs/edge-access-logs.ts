import { ArnFormat, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  CfnDelivery,
  CfnDeliveryDestination,
  CfnDeliverySource,
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
    const source = new CfnDeliverySource(this, 'Source', {
      name,
      logType: 'ACCESS_LOGS',
      resourceArn: props.distributionArn,
    });
    const destination = new CfnDeliveryDestination(this, 'Destination', {
      name,
      // The group's own ARN, without the `:*` of its Arn attribute.
      destinationResourceArn: Stack.of(this).formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: this.logGroup.logGroupName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
      outputFormat: 'json',
    });
    const delivery = new CfnDelivery(this, 'Delivery', {
      deliverySourceName: name,
      deliveryDestinationArn: destination.attrArn,
    });
    delivery.node.addDependency(source);
  }
}
