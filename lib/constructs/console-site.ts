import path from 'node:path';
import { AssetHashType, DockerImage, Duration, type ILocalBundling, Stack, Validations } from 'aws-cdk-lib';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { ILogGroup, LogGroup } from 'aws-cdk-lib/aws-logs';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { buildConsoleSync } from '../../console/build';
import { CONSOLE_SECURITY_HEADERS } from '../../console/security-headers';
import { CONSOLE_API_HOST_LABEL, CONSOLE_API_PREFIX, consoleApiHost } from '../../lambda/api/console-routes';
import type { PlatformAddressConfig } from '../config/platform';
import { functionLogGroup } from './api-function';
import { nagName } from './nag-names';
import { PRIVATE_ORIGIN_BUCKET } from './private-origin-bucket';
import { deliverAccessLogs } from './edge-access-logs';
import type { OriginSecret } from './origin-secret';
import { CONSOLE_PAGE_PREFIX, CONSOLE_PATH_FUNCTION_SOURCE } from './console-path-function';
import { responseHeadersOf } from './response-headers-policy';

export { CONSOLE_PAGE_PREFIX, CONSOLE_PATH_FUNCTION_SOURCE, responseHeadersOf };
import { ORIGIN_READ_TIMEOUT_SECONDS } from './tenant-distribution';

const REPO_ROOT = path.join(__dirname, '..', '..');

/** The console's label under the platform domain: `console.<platform domain>` (a reserved project name). */
export const CONSOLE_SITE_LABEL = 'console';

/**
 * The label of the console API's origin, `console-api.<platform domain>`: a name the platform's
 * wildcard custom domain answers, so CloudFront reaches the production REST API through its
 * wildcard certificate, with no name that exists only after production's deploy. The console
 * function answers at that host alone (lambda/api/console-routes.ts).
 */
export const CONSOLE_API_ORIGIN_LABEL = CONSOLE_API_HOST_LABEL;

/** The console's host, `console.<platform domain>`. */
export function consoleSiteHost(platformDomain: string): string {
  return `${CONSOLE_SITE_LABEL}.${platformDomain}`;
}

/** The console's origin, `https://console.<platform domain>`: the only `Origin` its API accepts with a session. */
export function consoleSiteOrigin(platformDomain: string): string {
  return `https://${consoleSiteHost(platformDomain)}`;
}

/**
 * Builds the page at synth with `buildConsoleSync` (console/build.ts, esbuild's JS API) in the
 * synth process, under the `console/` prefix of the asset, as the functions are bundled
 * (lib/constructs/api-function.ts), and keeps the build's list of files and their Cache-Control.
 * Local only, never Docker.
 */
class ConsoleBundling implements ILocalBundling {
  /** The files built, by key in the bucket; none until the stack is bundled. */
  files?: readonly { readonly key: string; readonly cacheControl: string }[];

  tryBundle(outputDir: string): boolean {
    const built = buildConsoleSync(path.join(outputDir, CONSOLE_PAGE_PREFIX));
    this.files = built.files.map((file) => ({
      key: `${CONSOLE_PAGE_PREFIX}/${file.path}`,
      cacheControl: file.cacheControl,
    }));
    return true;
  }
}

/** Properties of {@link ConsoleSite}. */
export interface ConsoleSiteProps {
  /** The platform domain and its hosted zone: the site is `console.<domain>`, its certificate validated there. */
  readonly platform: PlatformAddressConfig;
  /** The CLOUDFRONT-scope web ACL in front of the site (the edge's). */
  readonly webAcl: CfnWebACL;
  /**
   * The origin header secret, added to every API request: the regional web ACL then limits
   * each viewer by `CloudFront-Viewer-Address`, not every console user by one edge address.
   */
  readonly originSecret: OriginSecret;
  /** The log group the distribution's access logs are delivered to (standard logging v2). */
  readonly accessLogGroup: ILogGroup;
}

/**
 * The project console in AWS: one CloudFront distribution at `console.<platform domain>` that
 * serves the page and its API from one origin, so no CORS is needed.
 *
 * - The page: a private S3 bucket (public access blocked, TLS only, S3-managed encryption, no
 *   ACLs) read through origin access control, the build of console/build.ts deployed under
 *   `console/` by a BucketDeployment. A viewer-request function serves `/console/` as
 *   `console/index.html` and sends `/` there. Its response headers policy is
 *   CONSOLE_SECURITY_HEADERS, the list local mode sends too.
 * - The API, `/console/api/*`: never cached (CachingDisabled), every viewer header but Host
 *   forwarded (AllViewerExceptHostHeader: Cookie, Origin, X-CSRF-Token, Authorization and
 *   CloudFront-Viewer-Address), every method, HTTPS only. Its origin is
 *   `console-api.<platform domain>`: production's wildcard custom domain (`*.<platform
 *   domain>`, lib/constructs/project-addresses.ts) answers it with the REST API, whose console
 *   function answers at that host alone (a project's address, or a custom domain arriving there,
 *   gets 404). That name follows from the configuration alone, so
 *   synth stays offline and the edge stack, deployed before production, needs nothing from
 *   it (the execute-api host would have to be handed back across regions after production's
 *   deploy). Requests carry the origin secret header.
 * - The distribution: the edge's CLOUDFRONT web ACL, TLSv1.2_2021, HTTP/2 and 3, a certificate
 *   for `console.<platform domain>` DNS-validated in the platform zone (us-east-1: the edge
 *   stack), alias A and AAAA records there, access logs through standard logging v2.
 *
 * No custom error responses: they would replace the API's own 403s and 5xx bodies too.
 */
export class ConsoleSite extends Construct {
  /** The console's host, `console.<platform domain>`. */
  public readonly host: string;
  /** The page's address, `https://console.<platform domain>/console/`. */
  public readonly pageUrl: string;
  /** The bucket of the page. */
  public readonly bucket: Bucket;
  /** The distribution. */
  public readonly distribution: Distribution;
  /** The page's response headers policy, from CONSOLE_SECURITY_HEADERS. */
  public readonly pageHeaders: ResponseHeadersPolicy;
  /** The API's response headers policy: the page's headers and `Cache-Control: no-store`. */
  public readonly apiHeaders: ResponseHeadersPolicy;
  /** The page's deployments, in order: one per Cache-Control value of the build, the page last. */
  public deployments: readonly BucketDeployment[] = [];

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    const { domain, hostedZoneId } = props.platform;
    this.host = consoleSiteHost(domain);
    this.pageUrl = `${consoleSiteOrigin(domain)}/${CONSOLE_PAGE_PREFIX}/`;
    const zone = HostedZone.fromHostedZoneAttributes(this, 'PlatformZone', {
      hostedZoneId,
      zoneName: domain,
    });
    const certificate = new Certificate(this, 'Certificate', {
      domainName: this.host,
      validation: CertificateValidation.fromDns(zone),
    });

    // Built content only: the deployment deletes its files when it leaves the stack.
    this.bucket = new Bucket(this, 'Bucket', PRIVATE_ORIGIN_BUCKET);
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds the built console page, written only by its deployment and read only by this ' +
        "distribution through origin access control; the distribution's access logs record every read.",
    });

    const page = responseHeadersOf(CONSOLE_SECURITY_HEADERS);
    this.pageHeaders = new ResponseHeadersPolicy(this, 'PageHeaders', {
      comment: 'Animal Store console page: CONSOLE_SECURITY_HEADERS (console/security-headers.ts)',
      securityHeadersBehavior: page.securityHeadersBehavior,
      customHeadersBehavior: { customHeaders: page.customHeaders },
    });
    this.apiHeaders = new ResponseHeadersPolicy(this, 'ApiHeaders', {
      comment: 'Animal Store console API: the page headers, and never stored',
      securityHeadersBehavior: page.securityHeadersBehavior,
      customHeadersBehavior: {
        customHeaders: [
          ...page.customHeaders,
          { header: 'Cache-Control', value: 'no-store', override: true },
        ],
      },
    });

    const paths = new CloudFrontFunction(this, 'PathFunction', {
      code: FunctionCode.fromInline(CONSOLE_PATH_FUNCTION_SOURCE),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Animal Store console: /console/ is the page, / redirects there',
      autoPublish: true,
    });
    const secret = props.originSecret.originCustomHeader();
    const apiOrigin = new HttpOrigin(consoleApiHost(domain), {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      readTimeout: Duration.seconds(ORIGIN_READ_TIMEOUT_SECONDS),
      customHeaders: { [secret.headerName]: secret.headerValue },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Animal Store console: the page and ${CONSOLE_API_PREFIX}/* at ${this.host}`,
      domainNames: [this.host],
      certificate,
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: HttpVersion.HTTP2_AND_3,
      webAclId: props.webAcl.attrArn,
      defaultBehavior: {
        // Read only, no listing: a missing file is S3's 403, as for any key it cannot see.
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.pageHeaders,
        compress: true,
        functionAssociations: [{ eventType: FunctionEventType.VIEWER_REQUEST, function: paths }],
      },
      additionalBehaviors: {
        [`${CONSOLE_API_PREFIX}/*`]: {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.apiHeaders,
          compress: false,
        },
      },
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          "Projects' owners may be anywhere, so the console restricts no country; the web ACL and the console " +
          "token's sign-in rate limit are its protection, not geography.",
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Access logs are on, through standard logging v2 into the edge access log group (the delivery below), ' +
          'which records the same fields as the legacy Logging property this rule reads.',
      },
    );

    this.deployPage(functionLogGroup(this, 'DeploymentLogs', {}));

    const target = RecordTarget.fromAlias(new CloudFrontTarget(this.distribution));
    new ARecord(this, 'AliasA', { zone, recordName: `${this.host}.`, target });
    new AaaaRecord(this, 'AliasAaaa', { zone, recordName: `${this.host}.`, target });

    this.deliverAccessLogs(props.accessLogGroup);
  }

  /**
   * Builds the page (when the stack is bundled) and deploys it, each file with the
   * Cache-Control the build gives it: one deployment per value. The page (the build's first
   * file) goes last, so it never names a script not yet there; the first other group also
   * removes files no longer built (prune skips what it excludes). Unbundled (tests), one
   * deployment of the placeholder asset.
   */
  private deployPage(logGroup: LogGroup): void {
    const bundling = new ConsoleBundling();
    const asset = new Asset(this, 'PageAsset', {
      path: REPO_ROOT,
      // The hash of the build, not of the repository: the page is redeployed only when it changes.
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        local: bundling,
        // Required by the type and never used: local bundling either succeeds or fails synth.
        image: DockerImage.fromRegistry('unused-local-bundling-only'),
      },
    });
    const common = {
      sources: [Source.bucket(asset.bucket, asset.s3ObjectKey)],
      destinationBucket: this.bucket,
      retainOnDelete: false,
      logGroup,
    };
    const files = bundling.files ?? [];
    const byCacheControl = new Map<string, string[]>();
    for (const file of files)
      byCacheControl.set(file.cacheControl, [...(byCacheControl.get(file.cacheControl) ?? []), file.key]);
    const pageCacheControl = files[0]?.cacheControl;
    const groups = [...byCacheControl].sort(
      ([a], [b]) => Number(a === pageCacheControl) - Number(b === pageCacheControl),
    );
    const deployments: BucketDeployment[] = [];
    if (groups.length === 0) deployments.push(new BucketDeployment(this, 'Files', common));
    groups.forEach(([cacheControl, keys], index) => {
      const others = groups.filter((_, other) => other !== index).flatMap(([, otherKeys]) => otherKeys);
      const sweeps = index === 0;
      const deployment = new BucketDeployment(this, `Files${index}`, {
        ...common,
        cacheControl: [CacheControl.fromString(cacheControl)],
        ...(sweeps ? { exclude: others, prune: true } : { exclude: ['*'], include: keys, prune: false }),
      });
      for (const earlier of deployments) deployment.node.addDependency(earlier);
      deployments.push(deployment);
    });
    this.deployments = deployments;
    this.acknowledgeDeploymentFunction(asset.bucket.arnForObjects('*'));
  }

  /**
   * The deployments' one function (BucketDeployment's singleton), acknowledged here, by each
   * finding: CDK makes its role, policy and runtime, and none of them can be set.
   */
  private acknowledgeDeploymentFunction(assetObjects: string): void {
    const stack = Stack.of(this);
    const singleton = stack.node.children.find((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    if (!singleton) return;
    const shown = (value: string): string => nagName(stack, value);
    const copies =
      "It copies the page from CDK's asset into the console bucket and removes files no longer built";
    Validations.of(singleton).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "CDK's BucketDeployment function gets AWSLambdaBasicExecutionRole (log writing only); it runs only while " +
          'CloudFormation deploys the stack, and its other grants are on the two buckets it copies between.',
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          "CDK's BucketDeployment chooses its function's Python runtime (it runs the AWS CLI from a layer) and " +
          'offers no way to set it; the function runs only while CloudFormation deploys the stack.',
      },
      ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: `${copies}: CDK's bucket grants (read on the asset, read and write on the console bucket) use these action patterns.`,
      })),
      {
        id: `AwsSolutions-IAM5[Resource::${shown(assetObjects)}]`,
        reason: `${copies}: CDK grants it reading the asset bucket's objects, since the asset's key is only known at deploy.`,
      },
      {
        id: `AwsSolutions-IAM5[Resource::${shown(this.bucket.arnForObjects('*'))}]`,
        reason: `${copies}: every object of the console bucket is the page's, written and pruned by the deployment.`,
      },
    );
  }

  /** Standard logging v2 of the distribution into the edge's access-log group, under a name of its own. */
  private deliverAccessLogs(logGroup: ILogGroup): void {
    deliverAccessLogs(this, 'AccessLog', {
      name: `${Stack.of(this).stackName}-console-access-logs`,
      distributionArn: this.distribution.distributionArn,
      logGroup,
    });
  }
}
