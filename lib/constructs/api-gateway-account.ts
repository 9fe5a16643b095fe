import { Aws, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * The actions of AWS's AmazonAPIGatewayPushToCloudWatchLogs policy: what API Gateway does
 * with the account's logging role (create the execution log groups, write access and
 * execution logs), by the resource each takes (Service Authorization Reference, CloudWatch Logs).
 */
export const API_GATEWAY_LOGGING_ACTIONS = {
  /** On log groups and their streams: granted on the account's log groups in the region. */
  logGroups: [
    'logs:CreateLogGroup',
    'logs:CreateLogStream',
    'logs:DescribeLogStreams',
    'logs:PutLogEvents',
    'logs:GetLogEvents',
    'logs:FilterLogEvents',
  ],
  /** No resource type ("DescribeLogGroups: *"): on a log group ARN it would never be allowed. */
  unscoped: ['logs:DescribeLogGroups'],
} as const;

/**
 * API Gateway's account-level settings for the region: the role it writes every API's
 * access and execution logs with. Both are retained when the stack goes, because every
 * API of the account and region (not only this service's) logs through that role.
 */
export class ApiGatewayAccount extends Construct {
  /** The role API Gateway assumes to write logs. */
  public readonly cloudWatchRole: Role;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Pseudo parameters even when the stack has a region: the ARN (and its acknowledgement) reads the same everywhere.
    const logGroups = `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:*`;
    this.cloudWatchRole = new Role(this, 'CloudWatchRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway writes the access and execution logs of every API of this account and region',
      // An inline copy of AmazonAPIGatewayPushToCloudWatchLogs, narrowed to this account and region.
      inlinePolicies: {
        logs: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: [...API_GATEWAY_LOGGING_ACTIONS.logGroups],
              resources: [logGroups],
            }),
            new PolicyStatement({ actions: [...API_GATEWAY_LOGGING_ACTIONS.unscoped], resources: ['*'] }),
          ],
        }),
      },
    });
    this.cloudWatchRole.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(this.cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only logs:DescribeLogGroups, a listing that defines no resource type in the Service Authorization ' +
        'Reference, so `*` is the only resource it accepts; AWS grants it so in AmazonAPIGatewayPushToCloudWatchLogs.',
    });
    Validations.of(this.cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:*]',
      reason:
        'API Gateway uses one role per account and region for the logs of every API there, whose log groups ' +
        '(API-Gateway-Execution-Logs_<api id>/<stage> and each access log group) are not known to this stack; ' +
        'the role is limited to log actions in this account and region, and only API Gateway can assume it.',
    });

    const account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.cloudWatchRole.roleArn });
    account.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}
