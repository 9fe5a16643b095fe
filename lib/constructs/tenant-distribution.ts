import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  CachePolicy,
  CfnDistribution,
  type IFunction,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { EDGE_ERROR_PAGES_PATH, type EdgeErrorPages } from './edge-error-pages';
import type { OriginSecret } from './origin-secret';
import { TENANT_PARAMETERS } from './redirect-function';

/** The origin id of the project addresses in the distribution. */
const PROJECT_ORIGIN_ID = 'project-address';

/**
 * Seconds CloudFront waits for the origin: one more than API Gateway's 29-second integration
 * timeout, so a slow function ends as API Gateway's own 504, not CloudFront's.
 */
export const ORIGIN_READ_TIMEOUT_SECONDS = 30;

/** Every method: the API has GET, POST, PUT, PATCH, DELETE and OPTIONS (CORS) routes. */
const ALL_METHODS = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'];

/** Properties of {@link TenantDistribution}. */
export interface TenantDistributionProps {
  /** The platform domain: a tenant's origin is `<project>.<platform domain>`, the project's own address. */
  readonly platformDomain: string;
  /**
   * The distribution's own certificate (us-east-1). Tenants add their CloudFront-managed
   * ones; this one carries the TLS policy (CloudFormation requires a certificate with it).
   */
  readonly certificate: ICertificate;
  /** The CLOUDFRONT-scope web ACL in front of every tenant. */
  readonly webAcl: CfnWebACL;
  /** The viewer-request function (redirect domains). */
  readonly viewerRequestFunction: IFunction;
  /** The JSON Error bodies of the errors CloudFront makes itself. */
  readonly errorPages: EdgeErrorPages;
  /** The shared secret CloudFront adds to every origin request. */
  readonly originSecret: OriginSecret;
}

/**
 * The multi-tenant distribution (CloudFront SaaS Manager) behind every custom domain. It
 * serves nothing by itself (`tenant-only`): each domain is a distribution tenant that the
 * domains service creates at run time with the tenant parameter `project`, which makes the
 * origin that project's own address. Host routing there then works unchanged behind the
 * edge: CloudFront sends the origin's name as Host (the origin request policy forwards every
 * viewer header but Host). Nothing is cached: every request reaches the service.
 */
export class TenantDistribution extends Construct {
  /** The distribution. */
  public readonly distribution: CfnDistribution;
  /** Its ARN (CfnDistribution has no Arn attribute). */
  public readonly distributionArn: string;
  /**
   * `X-Content-Type-Options: nosniff` on every answer, the JSON error pages CloudFront makes
   * itself included; the service's own answers carry it already (JSON_HEADERS).
   */
  public readonly responseHeaders: ResponseHeadersPolicy;

  constructor(scope: Construct, id: string, props: TenantDistributionProps) {
    super(scope, id);
    const { errorPages } = props;
    const functionAssociations = [
      { eventType: 'viewer-request', functionArn: props.viewerRequestFunction.functionArn },
    ];
    this.responseHeaders = new ResponseHeadersPolicy(this, 'ResponseHeaders', {
      comment: 'Animal Store custom domains: nosniff on every answer, the edge error pages included',
      securityHeadersBehavior: { contentTypeOptions: { override: true } },
    });
    const responseHeadersPolicyId = this.responseHeaders.responseHeadersPolicyId;
    this.distribution = new CfnDistribution(this, 'Distribution', {
      distributionConfig: {
        comment: 'Animal Store custom domains: one tenant per domain, origin <project>.<platform domain>',
        enabled: true,
        connectionMode: 'tenant-only',
        tenantConfig: {
          parameterDefinitions: [
            {
              name: TENANT_PARAMETERS.project,
              definition: {
                stringSchema: { required: true, comment: 'Project whose address is the origin' },
              },
            },
            {
              name: TENANT_PARAMETERS.primaryDomain,
              definition: {
                stringSchema: { required: false, comment: 'Primary domain a redirect domain answers 301 to' },
              },
            },
          ],
        },
        httpVersion: 'http2and3',
        viewerCertificate: {
          acmCertificateArn: props.certificate.certificateArn,
          // Multi-tenant distributions support SNI only.
          sslSupportMethod: 'sni-only',
          minimumProtocolVersion: 'TLSv1.2_2021',
        },
        webAclId: props.webAcl.attrArn,
        origins: [
          {
            id: PROJECT_ORIGIN_ID,
            domainName: `{{${TENANT_PARAMETERS.project}}}.${props.platformDomain}`,
            customOriginConfig: {
              httpsPort: 443,
              originProtocolPolicy: 'https-only',
              originSslProtocols: ['TLSv1.2'],
              originReadTimeout: ORIGIN_READ_TIMEOUT_SECONDS,
            },
            originCustomHeaders: [props.originSecret.originCustomHeader()],
          },
          errorPages.origin(),
        ],
        defaultCacheBehavior: {
          targetOriginId: PROJECT_ORIGIN_ID,
          viewerProtocolPolicy: 'redirect-to-https',
          allowedMethods: ALL_METHODS,
          cachedMethods: ['GET', 'HEAD'],
          // Managed policies, by their fixed, documented ids (4135ea2d-…, b689b0a8-…).
          cachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
          originRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
          compress: false,
          functionAssociations,
          responseHeadersPolicyId,
        },
        cacheBehaviors: [
          {
            // CloudFront fetches an error page through the behavior its path matches.
            pathPattern: `${EDGE_ERROR_PAGES_PATH}/*`,
            targetOriginId: errorPages.originId,
            viewerProtocolPolicy: 'redirect-to-https',
            allowedMethods: ['GET', 'HEAD'],
            cachedMethods: ['GET', 'HEAD'],
            cachePolicyId: CachePolicy.CACHING_OPTIMIZED.cachePolicyId,
            compress: true,
            // A redirect domain redirects every path, this one too.
            functionAssociations,
            responseHeadersPolicyId,
          },
        ],
        customErrorResponses: errorPages.customErrorResponses(),
      },
    });
    this.distributionArn = Stack.of(this).formatArn({
      service: 'cloudfront',
      region: '',
      resource: 'distribution',
      resourceName: this.distribution.attrId,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    errorPages.allowRead(this.distributionArn);
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          "Tenants' customers may be anywhere, so the distribution restricts no country; a tenant that must " +
          'can get a geographic restriction of its own as a distribution tenant customization.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Access logs are on, through standard logging v2 into CloudWatch Logs (EdgeAccessLogs): multi-tenant ' +
          'distributions do not support the legacy Logging property this rule reads.',
      },
    );
  }
}
