import {
  Aws,
  CfnOutput,
  CustomResource,
  Duration,
  type RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type CfnFunction, Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { type CustomDomainConfig, TENANT_RECORD_TTL_SECONDS } from '../config/domains';
import { ApiFunction, functionLogGroup } from './api-function';

/**
 * SSM parameter holding the ARN of a tenant certificate: how the domain's stack finds the
 * certificate without a CloudFormation export (an export in use would block removing the
 * domain, since the certificates stack deploys first).
 */
export function certificateArnParameter(environmentStackName: string, domain: string): string {
  return `/${environmentStackName}/certificates/${domain}`;
}

/** ARNs of the account's ACM certificates in the stack's region (ids are known only after a request). */
export const ACCOUNT_CERTIFICATES_ARN = `arn:${Aws.PARTITION}:acm:${Aws.REGION}:${Aws.ACCOUNT_ID}:certificate/*`;

/** The managed policy the CDK Provider framework gives its own functions. */
const BASIC_EXECUTION_ROLE =
  'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole';

/**
 * The Provider framework's own functions, roles and state machine, acknowledged where
 * they are built: the framework decides their runtime, roles and logging. The wildcard
 * findings name each invoked function by its logical id, so they are computed here.
 */
export function acknowledgeProviderFramework(provider: Provider): void {
  const invoked = [
    provider.onEventHandler,
    provider.isCompleteHandler,
    provider.node.tryFindChild('framework-isComplete'),
    provider.node.tryFindChild('framework-onTimeout'),
  ].filter((fn): fn is IFunction => fn instanceof LambdaFunction || fn instanceof NodejsFunction);
  const stack = Stack.of(provider);
  for (const fn of invoked) {
    const logicalId = stack.getLogicalId(fn.node.defaultChild as CfnFunction);
    Validations.of(provider).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>:*]`,
      reason:
        'The CDK Provider framework invokes its handler functions by ARN with any version or alias (`:*`); ' +
        'nothing else.',
    });
  }
  Validations.of(provider).acknowledge(
    {
      id: `AwsSolutions-IAM4[${BASIC_EXECUTION_ROLE}]`,
      reason:
        'The CDK Provider framework gives its own functions AWSLambdaBasicExecutionRole (log writing only); ' +
        'they run only while CloudFormation deploys this stack.',
    },
    {
      id: 'AwsSolutions-L1',
      reason:
        "The CDK Provider framework's functions run the runtime this CDK version chose; it moves with the " +
        'aws-cdk-lib upgrade.',
    },
    {
      id: 'AwsSolutions-SF1',
      reason:
        "The Provider framework's waiter state machine only polls a certificate; its failures reach the " +
        'CloudFormation events.',
    },
    {
      id: 'AwsSolutions-SF2',
      reason:
        "The Provider framework's waiter state machine has no tracing option; the functions it calls are traced.",
    },
  );
}

/** Properties of {@link TenantCertificates}. */
export interface TenantCertificatesProps {
  /** Stack name of the environment the domains serve (names the ARN parameters). */
  readonly environmentStackName: string;
  /** The tenant domains whose DNS is outside Route 53; at least one. */
  readonly domains: readonly CustomDomainConfig[];
  /**
   * Retention of the request function's log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the request function's log group when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * Certificates for tenant domains whose DNS is elsewhere, requested by a custom
 * resource that does not wait for validation: their stack completes at once and its
 * outputs list each validation record the tenant must create. The domain's own stack
 * waits for the certificate to be issued (lib/constructs/project-domains.ts).
 */
export class TenantCertificates extends Construct {
  /** Each domain's certificate request resource, by domain name. */
  public readonly requests: ReadonlyMap<string, CustomResource>;

  constructor(scope: Construct, id: string, props: TenantCertificatesProps) {
    super(scope, id);
    if (props.domains.length === 0) throw new Error('TenantCertificates needs at least one domain.');
    const requestFunction = new ApiFunction(this, 'RequestFunction', {
      handlerModule: 'certificate-request',
      memorySize: 256,
      // ACM publishes a new certificate's validation record within seconds; the function polls for it.
      timeout: Duration.minutes(2),
      description: 'Requests tenant certificates (DNS validation) and returns their validation records',
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    });
    requestFunction.addToRolePolicy(
      new PolicyStatement({
        actions: ['acm:RequestCertificate'],
        // A request has no ARN yet; the condition limits it to this project's domains.
        resources: ['*'],
        conditions: {
          'ForAllValues:StringEquals': { 'acm:DomainNames': props.domains.map((domain) => domain.name) },
        },
      }),
    );
    requestFunction.addToRolePolicy(
      new PolicyStatement({
        actions: ['acm:DescribeCertificate', 'acm:DeleteCertificate', 'acm:AddTagsToCertificate'],
        resources: [ACCOUNT_CERTIFICATES_ARN],
      }),
    );
    // The finding is on the role, which ApiFunction creates beside the function.
    Validations.of(requestFunction.role ?? requestFunction).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:acm:<AWS::Region>:<AWS::AccountId>:certificate/*]',
      reason:
        'The certificates this function describes, tags and deletes get random ids at request time, so ' +
        'they are named by the account-and-region certificate ARN pattern (acm:RequestCertificate, which has ' +
        "no resource before the request, is limited by acm:DomainNames to this project's domains).",
    });
    const provider = new Provider(this, 'Provider', {
      onEventHandler: requestFunction,
      logGroup: functionLogGroup(this, 'ProviderLogs', props),
    });
    acknowledgeProviderFramework(provider);

    const requests = new Map<string, CustomResource>();
    for (const domain of props.domains) {
      const scopeOfDomain = new Construct(this, domain.name);
      const request = new CustomResource(scopeOfDomain, 'Certificate', {
        serviceToken: provider.serviceToken,
        resourceType: 'Custom::TenantCertificate',
        properties: { DomainName: domain.name },
      });
      new StringParameter(scopeOfDomain, 'ArnParameter', {
        parameterName: certificateArnParameter(props.environmentStackName, domain.name),
        stringValue: request.getAttString('CertificateArn'),
        description: `ACM certificate of ${domain.name} (read by its domain stack)`,
      });
      new CfnOutput(scopeOfDomain, 'ValidationRecord', {
        description: `Certificate validation record to add at the DNS provider of ${domain.zone.name}`,
        value: [
          request.getAttString('ValidationRecordName'),
          request.getAttString('ValidationRecordType'),
          request.getAttString('ValidationRecordValue'),
          `TTL ${TENANT_RECORD_TTL_SECONDS}`,
        ].join(' '),
      });
      requests.set(domain.name, request);
    }
    this.requests = requests;
  }
}
