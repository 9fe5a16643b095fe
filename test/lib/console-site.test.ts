import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { buildConsole } from '../../console/build';
import { CONSOLE_SECURITY_HEADERS } from '../../console/security-headers';
import { CONSOLE_API_PREFIX } from '../../lambda/api/console-routes';
import { RESERVED_PROJECT_NAMES, type PlatformAddressConfig } from '../../lib/config/platform';
import {
  CONSOLE_API_ORIGIN_LABEL,
  CONSOLE_PATH_FUNCTION_SOURCE,
  CONSOLE_SITE_LABEL,
  consoleSiteOrigin,
} from '../../lib/constructs/console-site';
import { ORIGIN_SECRET_HEADER } from '../../lib/constructs/origin-secret';
import { EDGE_OUTPUTS, EDGE_REGION, EDGE_STACK_NAME, EdgeStack } from '../../lib/edge-stack';
import { testApp } from '../support/synth';
import { type CfnResource, resourcesOfType, templateJson } from './template-queries';

const PLATFORM: PlatformAddressConfig = {
  domain: 'animalstore.example',
  hostedZoneId: 'Z0123456789PLATFORM',
};
const HOST = 'console.animalstore.example';

function edgeStack(app: App): EdgeStack {
  return new EdgeStack(app, EDGE_STACK_NAME, { platform: PLATFORM, serviceRegion: 'eu-west-1' });
}

const stack = edgeStack(testApp());
const template = Template.fromStack(stack);

/** The console site's resources of a type (their logical ids start with its construct id). */
function consoleResources(type: string, of: Template = template): [string, CfnResource][] {
  return Object.entries(resourcesOfType(of, type)).filter(([id]) => id.startsWith('Console'));
}

function only(type: string): [string, CfnResource] {
  const found = consoleResources(type);
  if (found.length !== 1) throw new Error(`Expected one ${type} of the console, found ${found.length}`);
  return found[0] as [string, CfnResource];
}

interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  ViewerProtocolPolicy: string;
  AllowedMethods: string[];
  CachePolicyId: string;
  OriginRequestPolicyId?: string;
  ResponseHeadersPolicyId: unknown;
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[];
}
interface Origin {
  Id: string;
  DomainName: unknown;
  OriginAccessControlId?: unknown;
  S3OriginConfig?: unknown;
  CustomOriginConfig?: Record<string, unknown>;
  OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[];
}

const [distributionId, distribution] = only('AWS::CloudFront::Distribution');
const config = distribution.Properties.DistributionConfig as Record<string, unknown> & {
  Origins: Origin[];
  DefaultCacheBehavior: Behavior;
  CacheBehaviors: Behavior[];
};
const originOf = (behavior: Behavior) =>
  config.Origins.find((origin) => origin.Id === behavior.TargetOriginId);
const [bucketId] = only('AWS::S3::Bucket');
const apiBehavior = config.CacheBehaviors.find(
  (behavior) => behavior.PathPattern === `${CONSOLE_API_PREFIX}/*`,
);

/** The headers a response headers policy makes CloudFront send, written as CloudFront writes them. */
function headersSent(policyRef: unknown): Record<string, string> {
  const id = (policyRef as { Ref: string }).Ref;
  const policy = templateJson(template).Resources[id]?.Properties.ResponseHeadersPolicyConfig as {
    SecurityHeadersConfig: {
      ContentSecurityPolicy: { ContentSecurityPolicy: string; Override: boolean };
      StrictTransportSecurity: {
        AccessControlMaxAgeSec: number;
        IncludeSubdomains: boolean;
        Preload: boolean;
        Override: boolean;
      };
      FrameOptions: { FrameOption: string; Override: boolean };
      ContentTypeOptions: { Override: boolean };
      ReferrerPolicy: { ReferrerPolicy: string; Override: boolean };
    };
    CustomHeadersConfig: { Items: { Header: string; Value: string; Override: boolean }[] };
  };
  const security = policy.SecurityHeadersConfig;
  const hsts = security.StrictTransportSecurity;
  const overrides = [
    ...Object.values(security).map((header) => header.Override),
    ...policy.CustomHeadersConfig.Items.map((item) => item.Override),
  ];
  // Every header replaces the origin's: S3's and the service's own.
  expect(new Set(overrides)).toEqual(new Set([true]));
  return {
    'Content-Security-Policy': security.ContentSecurityPolicy.ContentSecurityPolicy,
    'Strict-Transport-Security': [
      `max-age=${hsts.AccessControlMaxAgeSec}`,
      ...(hsts.IncludeSubdomains ? ['includeSubDomains'] : []),
      ...(hsts.Preload ? ['preload'] : []),
    ].join('; '),
    'X-Frame-Options': security.FrameOptions.FrameOption,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': security.ReferrerPolicy.ReferrerPolicy,
    ...Object.fromEntries(policy.CustomHeadersConfig.Items.map((item) => [item.Header, item.Value])),
  };
}

describe('the console site (edge stack)', () => {
  test('lives in the edge stack, in us-east-1, where CloudFront takes its certificate', () => {
    expect([stack.stackName, stack.region]).toEqual([EDGE_STACK_NAME, EDGE_REGION]);
    expect(EDGE_REGION).toBe('us-east-1');
  });

  test('its address is console.<platform domain>, a reserved project name, printed as an output', () => {
    expect(consoleSiteOrigin(PLATFORM.domain)).toBe(`https://${HOST}`);
    expect(RESERVED_PROJECT_NAMES).toContain(CONSOLE_SITE_LABEL);
    expect(templateJson(template).Outputs[EDGE_OUTPUTS.consoleUrl]?.Value).toBe(`https://${HOST}/console/`);
  });

  describe('the distribution', () => {
    test('answers console.<platform domain> with its own DNS-validated certificate, TLSv1.2_2021, SNI', () => {
      const [certificateId, certificate] = only('AWS::CertificateManager::Certificate');
      expect(certificate.Properties).toMatchObject({
        DomainName: HOST,
        ValidationMethod: 'DNS',
        DomainValidationOptions: [{ DomainName: HOST, HostedZoneId: PLATFORM.hostedZoneId }],
      });
      expect(config).toMatchObject({
        Aliases: [HOST],
        Enabled: true,
        HttpVersion: 'http2and3',
        ViewerCertificate: {
          AcmCertificateArn: { Ref: certificateId },
          MinimumProtocolVersion: 'TLSv1.2_2021',
          SslSupportMethod: 'sni-only',
        },
      });
    });

    test("is behind the edge's CLOUDFRONT-scope web ACL", () => {
      const [webAclId] = Object.entries(resourcesOfType(template, 'AWS::WAFv2::WebACL'))[0] ?? [];
      expect(config.WebACLId).toEqual({ 'Fn::GetAtt': [webAclId, 'Arn'] });
    });

    test("has no custom error responses: they would replace the API's own 403 and 5xx bodies", () => {
      expect(config.CustomErrorResponses).toBeUndefined();
    });

    test("delivers its access logs (standard logging v2) into the edge's access log group", () => {
      const [sourceId, source] = only('AWS::Logs::DeliverySource');
      const [destinationId, destination] = only('AWS::Logs::DeliveryDestination');
      const [, delivery] = only('AWS::Logs::Delivery');
      const [logGroupId] =
        Object.entries(resourcesOfType(template, 'AWS::Logs::LogGroup')).find(([id]) =>
          id.startsWith('AccessLogs'),
        ) ?? [];
      expect(JSON.stringify(source.Properties.ResourceArn)).toContain(distributionId);
      expect(source.Properties.LogType).toBe('ACCESS_LOGS');
      expect(JSON.stringify(destination.Properties.DestinationResourceArn)).toContain(logGroupId);
      expect(delivery.Properties.DeliveryDestinationArn).toEqual({ 'Fn::GetAtt': [destinationId, 'Arn'] });
      expect(templateJson(template).Resources).toHaveProperty(sourceId);
    });

    test('console.<platform domain> is an A and an AAAA alias of it in the platform zone', () => {
      for (const type of ['A', 'AAAA']) {
        template.hasResourceProperties('AWS::Route53::RecordSet', {
          Name: `${HOST}.`,
          Type: type,
          HostedZoneId: PLATFORM.hostedZoneId,
          AliasTarget: { DNSName: { 'Fn::GetAtt': [distributionId, 'DomainName'] } },
        });
      }
    });
  });

  describe('the page', () => {
    test('comes from a private bucket: public access blocked, encrypted, TLS only, no ACLs', () => {
      template.hasResourceProperties('AWS::S3::Bucket', {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      });
      const [, policy] = only('AWS::S3::BucketPolicy');
      const statements = (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
        .Statement;
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    });

    test('read by this distribution alone, through origin access control (SigV4, always signed)', () => {
      const [oacId, oac] = only('AWS::CloudFront::OriginAccessControl');
      expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      });
      const origin = originOf(config.DefaultCacheBehavior);
      expect(origin).toMatchObject({
        DomainName: { 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] },
        OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
        S3OriginConfig: { OriginAccessIdentity: '' },
      });
      const [, policy] = only('AWS::S3::BucketPolicy');
      const statements = (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
        .Statement;
      const allowed = statements.filter((statement) => statement.Effect === 'Allow');
      expect(allowed).toHaveLength(1);
      expect(allowed[0]).toMatchObject({
        Action: 's3:GetObject',
        Principal: { Service: 'cloudfront.amazonaws.com' },
      });
      expect(JSON.stringify(allowed[0]?.Condition)).toContain(distributionId);
    });

    test('is the default behaviour: GET and HEAD, cached, compressed, HTTPS by redirect', () => {
      expect(config.DefaultCacheBehavior).toMatchObject({
        ViewerProtocolPolicy: 'redirect-to-https',
        AllowedMethods: ['GET', 'HEAD'],
        CachePolicyId: CachePolicy.CACHING_OPTIMIZED.cachePolicyId,
        Compress: true,
      });
    });

    test('the path function (/console/ is the page, / and /console redirect) runs on every viewer request of the page', () => {
      const [functionId, fn] = only('AWS::CloudFront::Function');
      expect(fn.Properties).toMatchObject({
        FunctionCode: CONSOLE_PATH_FUNCTION_SOURCE,
        FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
      });
      expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
      ]);
      // What the function does is test/lib/console-path-function.test.ts's.
    });

    test('carries exactly CONSOLE_SECURITY_HEADERS (console/security-headers.ts)', () => {
      expect(headersSent(config.DefaultCacheBehavior.ResponseHeadersPolicyId)).toEqual(
        CONSOLE_SECURITY_HEADERS,
      );
    });

    test('is deployed into the bucket by a BucketDeployment, removed with it', () => {
      const deployments = Object.values(resourcesOfType(template, 'Custom::CDKBucketDeployment'));
      expect(deployments.length).toBeGreaterThan(0);
      for (const deployment of deployments) {
        expect(deployment.Properties).toMatchObject({
          DestinationBucketName: { Ref: bucketId },
          RetainOnDelete: false,
        });
      }
    });
  });

  describe(`the API, ${CONSOLE_API_PREFIX}/*`, () => {
    test('is a behaviour of the same distribution: never cached, every method, HTTPS only', () => {
      expect(apiBehavior).toMatchObject({
        ViewerProtocolPolicy: 'https-only',
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
        Compress: false,
      });
    });

    test('forwards every viewer header but Host (Cookie, Origin, X-CSRF-Token, Authorization, the viewer address)', () => {
      expect(apiBehavior?.OriginRequestPolicyId).toBe(
        OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
      );
    });

    test(`reaches the service at ${CONSOLE_API_ORIGIN_LABEL}.<platform domain> over HTTPS, with the origin secret`, () => {
      const origin = apiBehavior && originOf(apiBehavior);
      const [secretId] = Object.keys(resourcesOfType(template, 'AWS::SecretsManager::Secret'));
      expect(origin).toMatchObject({
        DomainName: `${CONSOLE_API_ORIGIN_LABEL}.${PLATFORM.domain}`,
        CustomOriginConfig: {
          OriginProtocolPolicy: 'https-only',
          OriginSSLProtocols: ['TLSv1.2'],
          OriginReadTimeout: 30,
        },
      });
      expect(origin?.OriginCustomHeaders?.map((header) => header.HeaderName)).toEqual([ORIGIN_SECRET_HEADER]);
      // A dynamic reference resolved at deploy, never the value.
      expect(JSON.stringify(origin?.OriginCustomHeaders?.[0]?.HeaderValue)).toContain(
        `{{resolve:secretsmanager:`,
      );
      expect(JSON.stringify(origin?.OriginCustomHeaders?.[0]?.HeaderValue)).toContain(secretId);
    });

    test("its name is under the platform wildcard (one label), answered by production's custom domain, and no project can take it", () => {
      expect(CONSOLE_API_ORIGIN_LABEL).toMatch(/^[a-z0-9-]+$/);
      expect(RESERVED_PROJECT_NAMES).toContain(CONSOLE_API_ORIGIN_LABEL);
    });

    test('carries the page headers and Cache-Control: no-store', () => {
      expect(headersSent(apiBehavior?.ResponseHeadersPolicyId)).toEqual({
        ...CONSOLE_SECURITY_HEADERS,
        'Cache-Control': 'no-store',
      });
    });
  });
});

describe('the console site, bundled as `cdk synth` does', () => {
  const outdir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-console-site-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  let bundled: Template;
  beforeAll(() => {
    // Without CDK's template validation (testApp): its WebAssembly compile costs several seconds of
    // CPU in each process, and it runs once per run over every stack the app deploys.
    const app = testApp({ 'aws:cdk:bundling-stacks': [EDGE_STACK_NAME] }, { outdir });
    bundled = Template.fromStack(edgeStack(app));
    app.synth();
  }, 60_000);

  test('builds the page with console/build.ts into the asset, under console/', () => {
    const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    expect(assets.some((name) => existsSync(path.join(outdir, name, 'console', 'index.html')))).toBe(true);
  });

  test('deploys each file with the Cache-Control buildConsole gives it, the page last', async () => {
    const built = await buildConsole(path.join(outdir, 'reference-build'));
    const [page, ...rest] = built.files;
    const deployments = Object.entries(resourcesOfType(bundled, 'Custom::CDKBucketDeployment'));
    const pageDeployment = deployments.find(([, deployment]) =>
      (deployment.Properties.Include as string[] | undefined)?.includes(`console/${page?.path}`),
    );
    expect(pageDeployment?.[1].Properties.SystemMetadata).toEqual({ 'cache-control': page?.cacheControl });
    const others = deployments.filter((entry) => entry !== pageDeployment);
    expect(others.length).toBeGreaterThan(0);
    const pageDependsOn = (
      templateJson(bundled).Resources[pageDeployment?.[0] ?? ''] as unknown as { DependsOn?: string[] }
    ).DependsOn;
    for (const [id, other] of others) {
      expect(pageDependsOn).toContain(id);
      // The sweeping deployment copies all but the page's files, and prunes files no longer built.
      expect(other.Properties).toMatchObject({ Exclude: [`console/${page?.path}`], Prune: true });
      expect(other.Properties.SystemMetadata).toEqual({ 'cache-control': rest[0]?.cacheControl });
    }
    expect(new Set(rest.map((file) => file.cacheControl)).size).toBe(others.length);
  });
});
