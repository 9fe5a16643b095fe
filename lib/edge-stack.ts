import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type PlatformAddressConfig, platformAddressProblems } from './config/platform';
import { AWS_REGION, type EnvironmentConfig } from './config/environments';
import { DomainsTarget } from './constructs/domains-target';
import { EdgeAccessLogs } from './constructs/edge-access-logs';
import { EdgeErrorPages } from './constructs/edge-error-pages';
import { acknowledgeSdkCallFunction, EdgeHandOver } from './constructs/edge-handover';
import { EdgeWebAcl } from './constructs/edge-web-acl';
import { OriginSecret } from './constructs/origin-secret';
import { RedirectFunction } from './constructs/redirect-function';
import { TenantDistribution } from './constructs/tenant-distribution';

/** Name of the edge stack: deployed once, whatever the environments. */
export const EDGE_STACK_NAME = 'AnimalStore-edge';

/**
 * The edge stack's region: CLOUDFRONT-scope web ACLs, and the CloudFront control plane's
 * resources, live in us-east-1.
 */
export const EDGE_REGION = 'us-east-1';

/**
 * Whether the edge serves an environment: production, once it has a platform address and a
 * stated region (where the edge stack hands its ids over). The app builds the edge stack, and
 * the environment's stack its console function, on this one condition.
 */
export function servedByEdge(
  config: Pick<EnvironmentConfig, 'name' | 'platformAddress' | 'region'>,
): config is EnvironmentConfig & { platformAddress: PlatformAddressConfig; region: string } {
  return config.name === 'production' && config.platformAddress !== undefined && config.region !== undefined;
}

/** Outputs of the edge stack. */
export const EDGE_OUTPUTS = {
  domainsTarget: 'DomainsTarget',
  distributionId: 'DistributionId',
  connectionGroupId: 'ConnectionGroupId',
  routingEndpoint: 'RoutingEndpoint',
} as const;

/**
 * The SSM parameters the edge stack writes in the service's region, by what they hold. The
 * service's stack reads each with `ssm.StringParameter.valueForStringParameter(this, name)`.
 */
export const EDGE_PARAMETERS = {
  /** The multi-tenant distribution's id: the domains service creates tenants of it. */
  distributionId: '/animal-store/edge/distribution-id',
  /** The connection group's id: every tenant joins it, so `domains.<platform domain>` reaches it. */
  connectionGroupId: '/animal-store/edge/connection-group-id',
  /** The ARN of the origin header secret's replica in the service's region (never the value). */
  originSecretArn: '/animal-store/edge/origin-secret-arn',
} as const;

/** Properties of {@link EdgeStack}. */
export interface EdgeStackProps extends StackProps {
  /** The platform domain and its hosted zone: origins, and the CNAME target's zone. */
  readonly platform: PlatformAddressConfig;
  /** The region of the service behind the edge (production's): values are handed over there. */
  readonly serviceRegion: string;
  /**
   * The account; the region is always {@link EDGE_REGION}.
   * @default environment-agnostic account
   */
  readonly account?: string;
}

/**
 * The platform resources of custom domains on CloudFront SaaS Manager, once per account in
 * us-east-1: the multi-tenant distribution with its redirect function, web ACL, error pages
 * and access logs; the connection group behind `domains.<platform domain>`; the origin header
 * secret; and the hand-over of its ids to the service's region. Tenants (one per domain) are
 * created at run time by the domains service, never deployed.
 */
export class EdgeStack extends Stack {
  public readonly target: DomainsTarget;
  public readonly distribution: TenantDistribution;
  public readonly webAcl: EdgeWebAcl;
  public readonly redirect: RedirectFunction;
  public readonly originSecret: OriginSecret;
  public readonly errorPages: EdgeErrorPages;
  public readonly accessLogs: EdgeAccessLogs;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    const problems = platformAddressProblems(props.platform);
    if (!AWS_REGION.test(props.serviceRegion)) {
      problems.push(
        `service region ${JSON.stringify(props.serviceRegion)}: use an AWS region name, e.g. eu-west-1.`,
      );
    }
    if (problems.length > 0) throw new Error(`Invalid edge stack configuration:\n- ${problems.join('\n- ')}`);
    super(scope, id, {
      description:
        'Animal Store Service: custom domains edge (CloudFront multi-tenant distribution, us-east-1)',
      ...props,
      stackName: EDGE_STACK_NAME,
      env: { account: props.account, region: EDGE_REGION },
    });

    this.target = new DomainsTarget(this, 'Target', { platform: props.platform });
    this.webAcl = new EdgeWebAcl(this, 'WebAcl');
    this.redirect = new RedirectFunction(this, 'Redirect');
    this.originSecret = new OriginSecret(this, 'OriginSecret', { replicaRegion: props.serviceRegion });
    this.errorPages = new EdgeErrorPages(this, 'ErrorPages');
    this.distribution = new TenantDistribution(this, 'Distribution', {
      platformDomain: props.platform.domain,
      certificate: this.target.certificate,
      webAcl: this.webAcl.webAcl,
      viewerRequestFunction: this.redirect.function,
      errorPages: this.errorPages,
      originSecret: this.originSecret,
    });
    this.accessLogs = new EdgeAccessLogs(this, 'AccessLogs', {
      distributionArn: this.distribution.distributionArn,
      retention: RetentionDays.SIX_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    new EdgeHandOver(this, 'HandOver', {
      region: props.serviceRegion,
      parameters: {
        [EDGE_PARAMETERS.distributionId]: this.distribution.distribution.attrId,
        [EDGE_PARAMETERS.connectionGroupId]: this.target.connectionGroup.attrId,
        [EDGE_PARAMETERS.originSecretArn]: this.originSecret.replicaArn,
      },
    });
    acknowledgeSdkCallFunction(this);

    new CfnOutput(this, EDGE_OUTPUTS.domainsTarget, {
      description: "The spec's {platform_cname_target}: every custom domain is a CNAME to it",
      value: this.target.targetName,
    });
    new CfnOutput(this, EDGE_OUTPUTS.routingEndpoint, {
      description: 'Routing endpoint of the connection group, behind the CNAME target',
      value: this.target.connectionGroup.attrRoutingEndpoint,
    });
    new CfnOutput(this, EDGE_OUTPUTS.distributionId, { value: this.distribution.distribution.attrId });
    new CfnOutput(this, EDGE_OUTPUTS.connectionGroupId, { value: this.target.connectionGroup.attrId });
  }
}
