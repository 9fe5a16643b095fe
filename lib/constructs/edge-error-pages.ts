import { Validations } from 'aws-cdk-lib';
import { type CfnDistribution, CfnOriginAccessControl } from 'aws-cdk-lib/aws-cloudfront';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import {
  AwsCustomResource,
  AwsCustomResourcePolicy,
  type AwsSdkCall,
  PhysicalResourceId,
} from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { ErrorCode } from '../../lambda/api/errors';
import { errorBodyJson, GATEWAY_ERRORS, type GatewayError, statusOf } from '../../lambda/api/gateway-errors';
import { PRIVATE_ORIGIN_BUCKET } from './private-origin-bucket';

/** Where the error pages are, on every tenant's domain and as keys of the bucket. */
export const EDGE_ERROR_PAGES_PATH = '/_edge/errors';

/** A fixed-message entry of the gateway's table (the edge has no gateway message to pass on). */
function fixed(error: GatewayError): { code: ErrorCode; message: string } {
  if (typeof error.message !== 'string') throw new Error(`${error.code} has no fixed message`);
  return { code: error.code, message: error.message };
}

/**
 * The statuses CloudFront answers with the JSON Error body instead of its own HTML page, and
 * what it says. A custom error response replaces the origin's response of that status too,
 * so only statuses whose only code in the catalogue is the one given are here: 403 (WAF's
 * managed-group blocks, CloudFront's refusals, the origin's `forbidden`), 500, and 502/503/504
 * (the origin unreachable, CloudFront overloaded or its function failing, the origin too
 * slow). 4xx statuses the service answers with specific codes (400, 404, 405, 413, 429) are
 * left alone: the service's own body gets through. The price: the service's own 503 reaches
 * the viewer as this page, without its Retry-After. Messages are the gateway's where it has one.
 */
export const EDGE_ERRORS = [
  fixed(GATEWAY_ERRORS.ACCESS_DENIED),
  fixed(GATEWAY_ERRORS.DEFAULT_5XX),
  fixed(GATEWAY_ERRORS.INTEGRATION_FAILURE),
  { code: 'service_unavailable' as const, message: 'The service is temporarily unavailable: retry shortly.' },
  fixed(GATEWAY_ERRORS.INTEGRATION_TIMEOUT),
].map(({ code, message }) => ({
  status: statusOf(code),
  key: `${EDGE_ERROR_PAGES_PATH.slice(1)}/${statusOf(code)}.json`,
  body: errorBodyJson(code, message),
}));

/** The origin id of the error pages in the distribution. */
const ORIGIN_ID = 'error-pages';

/**
 * The JSON Error bodies CloudFront returns for the errors it makes itself. A custom error
 * response needs its page from an origin, and one that must answer when the service cannot:
 * a private S3 bucket read by the distribution through origin access control. Each page is
 * written by a deploy-time SDK call from {@link EDGE_ERRORS}, so the bodies are the
 * catalogue's and no asset is bundled.
 */
export class EdgeErrorPages extends Construct {
  /** The bucket of the pages. */
  public readonly bucket: Bucket;
  /** The origin access control CloudFront signs its reads with. */
  public readonly originAccessControl: CfnOriginAccessControl;
  /** The pages' origin id in the distribution. */
  public readonly originId = ORIGIN_ID;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Generated content only: the custom resources below delete their pages first.
    this.bucket = new Bucket(this, 'Bucket', PRIVATE_ORIGIN_BUCKET);
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds five fixed JSON error pages written by the deploy and read only by this ' +
        "distribution through origin access control; the distribution's access logs record every read.",
    });
    this.originAccessControl = new CfnOriginAccessControl(this, 'OriginAccessControl', {
      originAccessControlConfig: {
        name: `${this.node.addr}-error-pages`,
        description: 'Animal Store edge: CloudFront reads the JSON error pages',
        originAccessControlOriginType: 's3',
        signingBehavior: 'always',
        signingProtocol: 'sigv4',
      },
    });
    for (const page of EDGE_ERRORS) {
      const put: AwsSdkCall = {
        service: 'S3',
        action: 'putObject',
        parameters: {
          Bucket: this.bucket.bucketName,
          Key: page.key,
          Body: page.body,
          ContentType: 'application/json',
        },
        physicalResourceId: PhysicalResourceId.of(page.key),
      };
      new AwsCustomResource(this, `Page${page.status}`, {
        onCreate: put,
        onUpdate: put,
        onDelete: {
          service: 'S3',
          action: 'deleteObject',
          parameters: { Bucket: this.bucket.bucketName, Key: page.key },
        },
        policy: AwsCustomResourcePolicy.fromStatements([
          new PolicyStatement({
            actions: ['s3:PutObject', 's3:DeleteObject'],
            resources: [this.bucket.arnForObjects(page.key)],
          }),
        ]),
        installLatestAwsSdk: false,
      });
    }
  }

  /** Lets the distribution, and it alone, read the pages. */
  allowRead(distributionArn: string): void {
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${EDGE_ERROR_PAGES_PATH.slice(1)}/*`)],
        conditions: { StringEquals: { 'AWS:SourceArn': distributionArn } },
      }),
    );
  }

  /** The pages' origin: the bucket, signed with origin access control (no legacy identity). */
  origin(): CfnDistribution.OriginProperty {
    return {
      id: ORIGIN_ID,
      domainName: this.bucket.bucketRegionalDomainName,
      originAccessControlId: this.originAccessControl.attrId,
      s3OriginConfig: { originAccessIdentity: '' },
    };
  }

  /** How CloudFront answers each error of {@link EDGE_ERRORS}: that status, its page, never cached. */
  customErrorResponses(): CfnDistribution.CustomErrorResponseProperty[] {
    return EDGE_ERRORS.map((page) => ({
      errorCode: page.status,
      responseCode: page.status,
      responsePagePath: `/${page.key}`,
      // A tenant's outage must end for its viewers as soon as the origin is back.
      errorCachingMinTtl: 0,
    }));
  }
}
