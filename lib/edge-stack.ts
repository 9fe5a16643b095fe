import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type PlatformAddressConfig, platformAddressProblems } from './config/platform';
import { SECRET_VERSION_ID, servedByEdge } from './config/environments';
import { AWS_REGION } from './config/regions';
import { AuthDomainCertificate } from './constructs/auth-domain';
import { ConsoleSite } from './constructs/console-site';
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

/** Whether the edge serves an environment (the configuration checks it too). */
export { servedByEdge };

/** Outputs of the edge stack. */
export const EDGE_OUTPUTS = {
  domainsTarget: 'DomainsTarget',
  distributionId: 'DistributionId',
  connectionGroupId: 'ConnectionGroupId',
  routingEndpoint: 'RoutingEndpoint',
  consoleUrl: 'ConsoleUrl',
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
  /** The ARN of the certificate of `auth.<platform domain>`, the console's sign-in domain (Cognito's custom domain). */
  authCertificateArn: '/animal-store/edge/auth-certificate-arn',
} as const;

/** Properties of {@link EdgeStack}. */
export interface EdgeStackProps extends StackProps {
  /** The platform domain and its hosted zone: origins, and the CNAME target's zone. */
  readonly platform: PlatformAddressConfig;
  /** The region of the service behind the edge (production's): values are handed over there. */
  readonly serviceRegion: string;
  /**
   * The origin secret's version CloudFront sends (its VersionId), after a rotation
   * (`EnvironmentConfig.originSecretVersion`, production's).
   * @default no version in the reference: AWSCURRENT when first resolved
   */
  readonly originSecretVersion?: string;
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
 * secret; the hand-over of its ids to the service's region; and the project console's own
 * distribution at `console.<platform domain>` ({@link ConsoleSite}), here because its
 * certificate must be in us-east-1. Tenants (one per domain) are created at run time by the
 * domains service, never deployed.
 */
export class EdgeStack extends Stack {
  public readonly target: DomainsTarget;
  public readonly distribution: TenantDistribution;
  public readonly webAcl: EdgeWebAcl;
  public readonly redirect: RedirectFunction;
  public readonly originSecret: OriginSecret;
  public readonly errorPages: EdgeErrorPages;
  public readonly accessLogs: EdgeAccessLogs;
  public readonly console: ConsoleSite;
  /** The certificate of the console's sign-in domain, `auth.<platform domain>`, for production's user pool. */
  public readonly authCertificate: AuthDomainCertificate;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    const problems = platformAddressProblems(props.platform);
    if (!AWS_REGION.test(props.serviceRegion)) {
      problems.push(
        `service region ${JSON.stringify(props.serviceRegion)}: use an AWS region name, e.g. eu-west-1.`,
      );
    }
    const version = props.originSecretVersion;
    if (version !== undefined && !SECRET_VERSION_ID.test(version)) {
      problems.push(
        `origin secret version ${JSON.stringify(version)}: use the secret's VersionId (32 to 64 letters, digits and hyphens).`,
      );
    }
    if (problems.length > 0) throw new Error(`Invalid edge stack configuration:\n- ${problems.join('\n- ')}`);
    super(scope, id, {
      description:
        'Animal Store Service: custom domains edge (CloudFront multi-tenant distribution) and the project console, us-east-1',
      ...props,
      stackName: EDGE_STACK_NAME,
      env: { account: props.account, region: EDGE_REGION },
    });

    this.target = new DomainsTarget(this, 'Target', { platform: props.platform });
    this.webAcl = new EdgeWebAcl(this, 'WebAcl');
    this.redirect = new RedirectFunction(this, 'Redirect');
    this.originSecret = new OriginSecret(this, 'OriginSecret', {
      replicaRegion: props.serviceRegion,
      versionId: props.originSecretVersion,
    });
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
    this.console = new ConsoleSite(this, 'Console', {
      platform: props.platform,
      webAcl: this.webAcl.webAcl,
      originSecret: this.originSecret,
      accessLogGroup: this.accessLogs.logGroup,
    });
    this.authCertificate = new AuthDomainCertificate(this, 'AuthCertificate', { platform: props.platform });
    new EdgeHandOver(this, 'HandOver', {
      region: props.serviceRegion,
      parameters: {
        [EDGE_PARAMETERS.distributionId]: this.distribution.distribution.attrId,
        [EDGE_PARAMETERS.connectionGroupId]: this.target.connectionGroup.attrId,
        [EDGE_PARAMETERS.originSecretArn]: this.originSecret.replicaArn,
        [EDGE_PARAMETERS.authCertificateArn]: this.authCertificate.certificate.certificateArn,
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
    new CfnOutput(this, EDGE_OUTPUTS.consoleUrl, {
      description: 'The project console',
      value: this.console.pageUrl,
    });
  }
}
