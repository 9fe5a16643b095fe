import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';

/**
 * A topic for the alarms with the email subscribed: encrypted with a key of its own (the
 * AWS-managed SNS key cannot let CloudWatch publish), TLS only, publishable by this
 * account's alarms alone.
 */
export function emailAlarmTopic(
  scope: Construct,
  email: string,
  removalPolicy: RemovalPolicy = RemovalPolicy.RETAIN,
): Topic {
  const key = new Key(scope, 'AlarmTopicKey', {
    description: `Encrypts the alarm notifications of ${Stack.of(scope).stackName}`,
    enableKeyRotation: true,
    removalPolicy,
  });
  const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
  key.grant(cloudWatch, 'kms:Decrypt', 'kms:GenerateDataKey*');
  const topic = new Topic(scope, 'AlarmTopic', {
    displayName: `${Stack.of(scope).stackName} alarms`,
    masterKey: key,
    enforceSSL: true,
  });
  const { account, region } = Stack.of(scope);
  topic.addToResourcePolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      principals: [cloudWatch],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': account },
        ArnLike: {
          'aws:SourceArn': `arn:${Stack.of(scope).partition}:cloudwatch:${region}:${account}:alarm:*`,
        },
      },
    }),
  );
  topic.addSubscription(new EmailSubscription(email));
  return topic;
}
