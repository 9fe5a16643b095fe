import { Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  AwsCustomResource,
  AwsCustomResourcePolicy,
  type AwsSdkCall,
  PhysicalResourceId,
} from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';

/** Properties of {@link EdgeHandOver}. */
export interface EdgeHandOverProps {
  /** The region the parameters are written to (the service's). */
  readonly region: string;
  /** Parameter name (starting with `/`) → value (tokens allowed). */
  readonly parameters: Readonly<Record<string, string>>;
}

/**
 * Values of this stack written as SSM parameters in another region, where a stack reads
 * them with `ssm.StringParameter.valueForStringParameter` (resolved at deploy: synth needs
 * no lookup, and no CloudFormation export ties the stacks, so either can change freely).
 * CloudFormation only writes parameters in its own region, so a deploy-time SDK call writes
 * each one, allowed to put and delete that parameter and nothing else.
 */
export class EdgeHandOver extends Construct {
  constructor(scope: Construct, id: string, props: EdgeHandOverProps) {
    super(scope, id);
    const stack = Stack.of(this);
    for (const [index, [name, value]] of Object.entries(props.parameters).entries()) {
      if (!/^(\/[A-Za-z0-9_.-]+)+$/.test(name)) {
        throw new Error(
          `EdgeHandOver parameter name ${JSON.stringify(name)}: use a path such as /animal-store/edge/name.`,
        );
      }
      const put: AwsSdkCall = {
        service: 'SSM',
        action: 'putParameter',
        region: props.region,
        parameters: { Name: name, Value: value, Type: 'String', Overwrite: true },
        physicalResourceId: PhysicalResourceId.of(name),
      };
      new AwsCustomResource(this, `Parameter${index}`, {
        onCreate: put,
        onUpdate: put,
        onDelete: {
          service: 'SSM',
          action: 'deleteParameter',
          region: props.region,
          parameters: { Name: name },
          ignoreErrorCodesMatching: 'ParameterNotFound',
        },
        policy: AwsCustomResourcePolicy.fromStatements([
          new PolicyStatement({
            actions: ['ssm:PutParameter', 'ssm:DeleteParameter'],
            resources: [
              stack.formatArn({
                service: 'ssm',
                region: props.region,
                resource: 'parameter',
                resourceName: name.slice(1),
              }),
            ],
          }),
        ]),
        installLatestAwsSdk: false,
      });
    }
  }
}

/**
 * The one function behind every deploy-time SDK call of a stack (AwsCustomResource's
 * singleton), acknowledged where the calls are made: CDK gives its role the basic execution
 * policy, and each call's own policy allows exactly its action and resource.
 */
export function acknowledgeSdkCallFunction(stack: Stack): void {
  const singleton = stack.node.tryFindChild(
    `AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`,
  );
  if (!singleton) return;
  Validations.of(singleton).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason:
      "CDK's AwsCustomResource function gets AWSLambdaBasicExecutionRole (log writing only); it runs only while " +
      'CloudFormation deploys the stack, and each call it makes has a policy of its own action and resource.',
  });
}
