import { readFileSync } from 'node:fs';
import { type App, Stack, Token, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { errorBody } from '../../lambda/api/errors';
import { addAnimalStoreStacks } from '../../lib/animal-store-app';
import { environmentsFromContext } from '../../lib/config/environments';
import {
  type PlatformAddressConfig,
  RESERVED_PROJECT_NAMES,
  PLATFORM_CNAME_TARGET_LABEL,
} from '../../lib/config/platform';
import { EDGE_ERRORS } from '../../lib/constructs/edge-error-pages';
import {
  floodLimitPerIp,
  FLOOD_WINDOW_SECONDS,
  MANAGED_RULE_GROUPS,
} from '../../lib/constructs/edge-firewall';
import { ORIGIN_SECRET_HEADER } from '../../lib/constructs/origin-secret';
import { REDIRECT_FUNCTION_SOURCE, TENANT_PARAMETERS } from '../../lib/constructs/redirect-function';
import { EDGE_OUTPUTS, EDGE_PARAMETERS, EDGE_REGION, EDGE_STACK_NAME, EdgeStack } from '../../lib/edge-stack';
import { testApp } from '../support/synth';
import { type CfnResource, resourcesOfType, templateJson } from './template-queries';

const PLATFORM: PlatformAddressConfig = {
  domain: 'animalstore.example',
  hostedZoneId: 'Z0123456789PLATFORM',
};
const SERVICE_REGION = 'eu-west-1';

function edgeStack(app: App = testApp()): EdgeStack {
  return new EdgeStack(app, EDGE_STACK_NAME, { platform: PLATFORM, serviceRegion: SERVICE_REGION });
}

const stack = edgeStack();
const template = Template.fromStack(stack);

/** The one resource of a type, the console site's aside (test/lib/console-site.test.ts covers those). */
function only(type: string): [string, CfnResource] {
  // The console's and the sign-in domain's resources have tests of their own.
  const found = Object.entries(resourcesOfType(template, type)).filter(
    ([id]) => !id.startsWith('Console') && !id.startsWith('AuthCertificate'),
  );
  if (found.length !== 1) throw new Error(`Expected one ${type}, found ${found.length}`);
  return found[0] as [string, CfnResource];
}

const [distributionId, distribution] = only('AWS::CloudFront::Distribution');
const config = distribution.Properties.DistributionConfig as Record<string, unknown> & {
  Origins: { Id: string; DomainName: unknown; [key: string]: unknown }[];
  DefaultCacheBehavior: Record<string, unknown>;
  CacheBehaviors: Record<string, unknown>[];
  CustomErrorResponses: Record<string, unknown>[];
};
const DISTRIBUTION_ARN = `arn:aws:cloudfront::\${AWS::AccountId}:distribution/\${${distributionId}.Id}`;
const projectOrigin = config.Origins.find(
  (origin) => origin.Id === config.DefaultCacheBehavior.TargetOriginId,
);

/**
 * A CloudFormation value as text, intrinsics written out (`${Logical.Attr}`, `${split(…)[i]}`),
 * so a custom resource's JSON payload can be parsed and its values compared.
 */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  const node = value as Record<string, unknown>;
  if ('Ref' in node) return `\${${String(node.Ref)}}`;
  if ('Fn::GetAtt' in node) return `\${${(node['Fn::GetAtt'] as string[]).join('.')}}`;
  if ('Fn::Join' in node) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(separator);
  }
  if ('Fn::Select' in node) {
    const [index, list] = node['Fn::Select'] as [number, { 'Fn::Split': [string, unknown] }];
    return `\${split(${render(list['Fn::Split'][1])})[${index}]}`;
  }
  throw new Error(`Cannot render ${JSON.stringify(value)}`);
}

interface SdkCall {
  service: string;
  action: string;
  region?: string;
  parameters: Record<string, string>;
}

/** Every deploy-time SDK call of the stack with its custom resource's policy statements. */
const sdkCalls = Object.entries(resourcesOfType(template, 'Custom::AWS')).map(([id, resource]) => {
  const policyId = (template.toJSON().Resources[id].DependsOn as string[])[0] ?? '';
  const policy = templateJson(template).Resources[policyId];
  return {
    create: JSON.parse(render(resource.Properties.Create)) as SdkCall,
    update: JSON.parse(render(resource.Properties.Update)) as SdkCall,
    remove: JSON.parse(render(resource.Properties.Delete)) as SdkCall,
    statements: (
      policy?.Properties.PolicyDocument as { Statement: { Action: string[]; Resource: unknown }[] }
    ).Statement,
  };
});

describe('edge stack (AnimalStore-edge)', () => {
  test('is pinned to us-east-1, where CLOUDFRONT-scope web ACLs live', () => {
    expect([stack.stackName, stack.region, EDGE_REGION]).toEqual([
      'AnimalStore-edge',
      'us-east-1',
      'us-east-1',
    ]);
  });

  describe('the multi-tenant distribution', () => {
    test('serves tenants only (CloudFront SaaS Manager), over HTTP/2 and 3', () => {
      expect(config).toMatchObject({
        ConnectionMode: 'tenant-only',
        Enabled: true,
        HttpVersion: 'http2and3',
      });
    });

    test("a tenant's origin is its project's own address, set by the required tenant parameter", () => {
      expect(projectOrigin?.DomainName).toBe(`{{${TENANT_PARAMETERS.project}}}.animalstore.example`);
      expect(config.TenantConfig).toEqual({
        ParameterDefinitions: [
          {
            Name: TENANT_PARAMETERS.project,
            Definition: { StringSchema: { Required: true, Comment: expect.any(String) } },
          },
          {
            Name: TENANT_PARAMETERS.primaryDomain,
            Definition: { StringSchema: { Required: false, Comment: expect.any(String) } },
          },
        ],
      });
    });

    test('reaches the origin over HTTPS only, TLS 1.2, waiting just past API Gateway’s 29 s', () => {
      expect(projectOrigin?.CustomOriginConfig).toEqual({
        HTTPSPort: 443,
        OriginProtocolPolicy: 'https-only',
        OriginSSLProtocols: ['TLSv1.2'],
        OriginReadTimeout: 30,
      });
    });

    test('redirects viewers to HTTPS, allows every method, caches nothing, forwards all but Host', () => {
      expect(config.DefaultCacheBehavior).toMatchObject({
        ViewerProtocolPolicy: 'redirect-to-https',
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        // The managed policies' fixed ids: CachingDisabled and AllViewerExceptHostHeader.
        CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
        OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
      });
    });

    test('speaks TLS 1.2 (TLSv1.2_2021) with SNI, on its certificate for domains.<platform domain>', () => {
      const [certificateId, certificate] = only('AWS::CertificateManager::Certificate');
      expect(config.ViewerCertificate).toEqual({
        AcmCertificateArn: { Ref: certificateId },
        SslSupportMethod: 'sni-only',
        MinimumProtocolVersion: 'TLSv1.2_2021',
      });
      expect(certificate.Properties).toMatchObject({
        DomainName: 'domains.animalstore.example',
        ValidationMethod: 'DNS',
        DomainValidationOptions: [
          { DomainName: 'domains.animalstore.example', HostedZoneId: PLATFORM.hostedZoneId },
        ],
      });
    });

    test('runs the redirect function on every viewer request', () => {
      const [functionId] = only('AWS::CloudFront::Function');
      const association = [
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
      ];
      expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual(association);
      expect(config.CacheBehaviors.map((behavior) => behavior.FunctionAssociations)).toEqual([association]);
    });

    test('sends X-Content-Type-Options: nosniff on every answer, its own JSON error pages included', () => {
      const [policyId, policy] = only('AWS::CloudFront::ResponseHeadersPolicy');
      expect(policy.Properties).toMatchObject({
        ResponseHeadersPolicyConfig: { SecurityHeadersConfig: { ContentTypeOptions: { Override: true } } },
      });
      const behaviors = [config.DefaultCacheBehavior, ...config.CacheBehaviors];
      expect(behaviors.map((behavior) => behavior.ResponseHeadersPolicyId)).toEqual(
        behaviors.map(() => ({ Ref: policyId })),
      );
    });

    test('its web ACL is the CLOUDFRONT-scope one, by ARN (WAFv2)', () => {
      const [webAclId] = only('AWS::WAFv2::WebACL');
      expect(config.WebACLId).toEqual({ 'Fn::GetAtt': [webAclId, 'Arn'] });
    });

    test('adds the secret origin header as a Secrets Manager dynamic reference, never a value', () => {
      const [secretId] = only('AWS::SecretsManager::Secret');
      expect(projectOrigin?.OriginCustomHeaders).toEqual([
        {
          HeaderName: ORIGIN_SECRET_HEADER,
          HeaderValue: {
            'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']],
          },
        },
      ]);
    });
  });

  describe('the redirect function', () => {
    test('is the source file, on cloudfront-js-2.0, published', () => {
      const [, fn] = only('AWS::CloudFront::Function');
      expect(fn.Properties).toMatchObject({
        FunctionCode: readFileSync(REDIRECT_FUNCTION_SOURCE, 'utf8'),
        FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
        AutoPublish: true,
      });
    });
  });

  describe('the connection group and the CNAME target', () => {
    test('a connection group with IPv6, the routing endpoint of every tenant', () => {
      const [, group] = only('AWS::CloudFront::ConnectionGroup');
      expect(group.Properties).toMatchObject({ Enabled: true, Ipv6Enabled: true });
    });

    test('domains.<platform domain> is a CNAME to its routing endpoint in the platform zone', () => {
      const [groupId] = only('AWS::CloudFront::ConnectionGroup');
      template.hasResourceProperties('AWS::Route53::RecordSet', {
        Name: 'domains.animalstore.example.',
        Type: 'CNAME',
        HostedZoneId: PLATFORM.hostedZoneId,
        ResourceRecords: [{ 'Fn::GetAtt': [groupId, 'RoutingEndpoint'] }],
      });
    });

    test("*.domains.<platform domain>, every project's own target, is a CNAME to the same routing endpoint", () => {
      const [groupId] = only('AWS::CloudFront::ConnectionGroup');
      template.hasResourceProperties('AWS::Route53::RecordSet', {
        Name: '*.domains.animalstore.example.',
        Type: 'CNAME',
        HostedZoneId: PLATFORM.hostedZoneId,
        ResourceRecords: [{ 'Fn::GetAtt': [groupId, 'RoutingEndpoint'] }],
      });
    });

    test("the target is printed as an output, the spec's {platform_cname_target}", () => {
      expect(templateJson(template).Outputs[EDGE_OUTPUTS.domainsTarget]?.Value).toBe(
        'domains.animalstore.example',
      );
    });

    test("its label is a reserved project name, so no project's address can take it", () => {
      expect(RESERVED_PROJECT_NAMES).toContain(PLATFORM_CNAME_TARGET_LABEL);
    });
  });

  describe('the web ACL', () => {
    const [, webAcl] = only('AWS::WAFv2::WebACL');
    const { Rules, CustomResponseBodies } = webAcl.Properties as {
      Rules: {
        Name: string;
        Statement: Record<string, unknown>;
        Action?: { Block?: { CustomResponse: { ResponseCode: number; CustomResponseBodyKey: string } } };
      }[];
      CustomResponseBodies: Record<string, { ContentType: string; Content: string }>;
    };

    test('has CLOUDFRONT scope and allows by default', () => {
      expect(webAcl.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    });

    test('has the AWS managed rule groups of the regional web ACL', () => {
      const groups = Rules.flatMap((rule) => {
        const group = rule.Statement.ManagedRuleGroupStatement as
          { VendorName: string; Name: string } | undefined;
        return group ? [`${group.VendorName}/${group.Name}`] : [];
      });
      expect(groups).toEqual(MANAGED_RULE_GROUPS.map((name) => `AWS/${name}`));
    });

    test("limits each viewer's own address per minute, as the regional rule does", () => {
      const flood = Rules.find((rule) => 'RateBasedStatement' in rule.Statement);
      expect(flood?.Statement.RateBasedStatement).toEqual({
        AggregateKeyType: 'IP',
        Limit: floodLimitPerIp(),
        EvaluationWindowSec: FLOOD_WINDOW_SECONDS,
      });
      expect(flood?.Action?.Block?.CustomResponse.ResponseCode).toBe(429);
    });

    test('every block with a response of its own answers the JSON Error body of its status', () => {
      const blocks = Rules.flatMap((rule) => (rule.Action?.Block ? [rule.Action.Block.CustomResponse] : []));
      expect(blocks.length).toBeGreaterThanOrEqual(2);
      for (const { ResponseCode, CustomResponseBodyKey } of blocks) {
        const body = CustomResponseBodies[CustomResponseBodyKey];
        expect(body?.ContentType).toBe('APPLICATION_JSON');
        expect(JSON.parse(body?.Content ?? '')).toEqual({
          code: expect.any(String),
          message: expect.any(String),
          status: ResponseCode,
        });
      }
    });
  });

  describe('errors CloudFront makes itself', () => {
    test('403, 500, 502, 503 and 504 answer a JSON page of that status, never cached', () => {
      expect(config.CustomErrorResponses).toEqual(
        [403, 500, 502, 503, 504].map((status) => ({
          ErrorCode: status,
          ResponseCode: status,
          ResponsePagePath: `/_edge/errors/${status}.json`,
          ErrorCachingMinTTL: 0,
        })),
      );
    });

    test('each page is the Error body of its status, written to the bucket as application/json', () => {
      const [bucketId] = only('AWS::S3::Bucket');
      const pages = sdkCalls.filter((call) => call.create.service === 'S3');
      expect(pages.map((page) => page.create.parameters.Key)).toEqual(EDGE_ERRORS.map((error) => error.key));
      for (const page of pages) {
        const status = Number(/(\d{3})\.json$/.exec(page.create.parameters.Key ?? '')?.[1]);
        const body = JSON.parse(page.create.parameters.Body ?? '') as ReturnType<typeof errorBody>;
        expect(body).toEqual(errorBody(body.code, body.message));
        expect(body.status).toBe(status);
        expect(page.create).toEqual(page.update);
        expect(page.create.parameters).toMatchObject({
          Bucket: `\${${bucketId}}`,
          ContentType: 'application/json',
        });
        expect(page.remove).toMatchObject({
          action: 'deleteObject',
          parameters: { Key: page.create.parameters.Key },
        });
      }
    });

    test('the pages come from the private bucket through origin access control, on their own path', () => {
      const [bucketId, bucket] = only('AWS::S3::Bucket');
      const [oacId] = only('AWS::CloudFront::OriginAccessControl');
      const origin = config.Origins.find(
        (candidate) => candidate.Id === config.CacheBehaviors[0]?.TargetOriginId,
      );
      expect(origin).toEqual({
        Id: 'error-pages',
        DomainName: { 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] },
        OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
        S3OriginConfig: { OriginAccessIdentity: '' },
      });
      expect(config.CacheBehaviors[0]).toMatchObject({
        PathPattern: '/_edge/errors/*',
        AllowedMethods: ['GET', 'HEAD'],
      });
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
    });

    test('only this distribution may read them', () => {
      const [, policy] = only('AWS::S3::BucketPolicy');
      const allows = (
        policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }
      ).Statement.filter((statement) => statement.Effect === 'Allow');
      expect(allows).toEqual([
        expect.objectContaining({
          Principal: { Service: 'cloudfront.amazonaws.com' },
          Action: 's3:GetObject',
          Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
        }),
      ]);
      expect(
        render(
          (allows[0]?.Condition as Record<string, Record<string, unknown>>).StringEquals?.['AWS:SourceArn'],
        ),
      ).toBe(DISTRIBUTION_ARN);
    });
  });

  describe('the origin header secret', () => {
    test('is generated by Secrets Manager at deploy and replicated to the service region', () => {
      const [, secret] = only('AWS::SecretsManager::Secret');
      expect(secret.Properties).toMatchObject({
        GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
        ReplicaRegions: [{ Region: SERVICE_REGION }],
      });
      expect(secret.Properties).not.toHaveProperty('SecretString');
    });
  });

  describe('hand-over to the service region', () => {
    const parameters = sdkCalls.filter((call) => call.create.service === 'SSM');
    const [secretId] = only('AWS::SecretsManager::Secret');
    const [groupId] = only('AWS::CloudFront::ConnectionGroup');
    const split = (index: number) => `\${split(\${${secretId}})[${index}]}`;

    test('writes an SSM parameter per value in the service region: ids and the replica ARN, no secret', () => {
      expect(
        Object.fromEntries(
          parameters.map((call) => [call.create.parameters.Name, call.create.parameters.Value]),
        ),
      ).toEqual({
        [EDGE_PARAMETERS.distributionId]: `\${${distributionId}.Id}`,
        [EDGE_PARAMETERS.connectionGroupId]: `\${${groupId}.Id}`,
        [EDGE_PARAMETERS.originSecretArn]: [
          split(0),
          split(1),
          split(2),
          SERVICE_REGION,
          split(4),
          split(5),
          split(6),
        ].join(':'),
        // The sign-in domain's certificate (test/lib/console-identity.test.ts).
        [EDGE_PARAMETERS.authCertificateArn]: expect.stringMatching(/^\$\{AuthCertificate[0-9A-F]{8}\}$/),
      });
      for (const call of parameters) {
        expect(call.create).toMatchObject({ action: 'putParameter', region: SERVICE_REGION });
        expect(call.create.parameters).toMatchObject({ Type: 'String', Overwrite: true });
        expect(call.update).toEqual(call.create);
        expect(call.remove).toMatchObject({ action: 'deleteParameter', region: SERVICE_REGION });
      }
    });

    test('each call may put and delete its one parameter there, nothing else', () => {
      for (const call of parameters) {
        expect(call.statements).toEqual([
          {
            Action: ['ssm:DeleteParameter', 'ssm:PutParameter'],
            Effect: 'Allow',
            Resource: {
              'Fn::Join': [
                '',
                [
                  `arn:aws:ssm:${SERVICE_REGION}:`,
                  { Ref: 'AWS::AccountId' },
                  `:parameter${call.create.parameters.Name}`,
                ],
              ],
            },
          },
        ]);
      }
    });
  });

  describe('access logs', () => {
    test('standard logging v2 delivers the access logs to a retained CloudWatch Logs group', () => {
      const [sourceId, source] = only('AWS::Logs::DeliverySource');
      const [destinationId, destination] = only('AWS::Logs::DeliveryDestination');
      const [, delivery] = only('AWS::Logs::Delivery');
      expect(render(source.Properties.ResourceArn)).toBe(DISTRIBUTION_ARN);
      expect(source.Properties.LogType).toBe('ACCESS_LOGS');
      const [logGroupId] = Object.entries(resourcesOfType(template, 'AWS::Logs::LogGroup')).find(
        ([, group]) =>
          group.Properties.LogGroupName === '/aws/vendedlogs/cloudfront/AnimalStore-edge-access-logs',
      ) ?? [''];
      // The group's own ARN, without the `:*` of its Arn attribute.
      expect(render(destination.Properties.DestinationResourceArn)).toBe(
        `arn:aws:logs:us-east-1:\${AWS::AccountId}:log-group:\${${logGroupId}}`,
      );
      expect(delivery.Properties).toEqual({
        DeliverySourceName: source.Properties.Name,
        DeliveryDestinationArn: { 'Fn::GetAtt': [destinationId, 'Arn'] },
      });
      expect(
        template.toJSON().Resources[Object.keys(resourcesOfType(template, 'AWS::Logs::Delivery'))[0] ?? '']
          .DependsOn,
      ).toContain(sourceId);
      template.hasResource('AWS::Logs::LogGroup', {
        Properties: {
          LogGroupName: '/aws/vendedlogs/cloudfront/AnimalStore-edge-access-logs',
          RetentionInDays: 180,
        },
        DeletionPolicy: 'Retain',
      });
    });
  });

  describe('AWS Solutions checks (cdk-nag)', () => {
    const app = testApp();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const checked = edgeStack(app);

    test('synthesis succeeds with the checks as a validation plugin, as in bin/', () => {
      expect(() => app.synth()).not.toThrow();
    });

    test('leave no finding unacknowledged', () => {
      const report = new AwsSolutionsChecks().validateScope(app);
      expect(
        report.violations.flatMap((v) =>
          v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
        ),
      ).toEqual([]);
    });

    test('acknowledge nothing for the whole stack', () => {
      const onStack = checked.node.metadata.filter(
        (entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY,
      );
      expect(onStack).toEqual([]);
    });
  });
});

describe('the edge stack in the app', () => {
  const context = (values: Record<string, string>) => (key: string) => values[key];
  const platform = { platformDomain: PLATFORM.domain, platformHostedZoneId: PLATFORM.hostedZoneId };

  function stacksOf(values: Record<string, string>): Stack[] {
    const app = testApp();
    addAnimalStoreStacks(app, { environments: environmentsFromContext(context(values), {}) });
    return app.node.children.filter(Stack.isStack);
  }

  test('is built once production has a platform address and a stated region, in us-east-1', () => {
    const stacks = stacksOf({ ...platform, productionRegion: SERVICE_REGION });
    const edge = stacks.find((candidate) => candidate.stackName === EDGE_STACK_NAME);
    expect(edge?.region).toBe('us-east-1');
    // Production itself is unchanged: its stated region only says where the values go.
    const production = stacks.find((candidate) => candidate.stackName === 'AnimalStore-production');
    expect(Token.isUnresolved(production?.region)).toBe(true);
    expect(Template.fromStack(edge as Stack).toJSON().Outputs[EDGE_OUTPUTS.domainsTarget].Value).toBe(
      'domains.animalstore.example',
    );
  });

  test('is not built without them: the app deploys what it did before', () => {
    const partial: Record<string, string>[] = [{}, platform, { productionRegion: SERVICE_REGION }];
    for (const values of partial) {
      expect(stacksOf(values).map((candidate) => candidate.stackName)).not.toContain(EDGE_STACK_NAME);
    }
  });

  test('follows production only: staging alone builds no edge stack', () => {
    const names = stacksOf({ ...platform, productionRegion: SERVICE_REGION, environments: 'staging' }).map(
      (candidate) => candidate.stackName,
    );
    expect(names).not.toContain(EDGE_STACK_NAME);
  });

  test('an invalid platform address or service region fails synth, naming each with its fix', () => {
    expect(
      () =>
        new EdgeStack(testApp(), EDGE_STACK_NAME, {
          platform: { domain: 'Animal Store', hostedZoneId: 'zone' },
          serviceRegion: 'Europe',
        }),
    ).toThrow(
      /platform domain "Animal Store".*\n.*platform hosted zone id "zone".*\n.*service region "Europe": use an AWS region name/,
    );
  });

  test('a malformed production region fails synth, naming the value and the fix', () => {
    expect(() => stacksOf({ ...platform, productionRegion: 'Europe' })).toThrow(
      /Context value "productionRegion" is "Europe": give the AWS region of AnimalStore-production, e\.g\. -c productionRegion=eu-west-1/,
    );
  });

  test('a deploy of production to a region other than the stated one fails synth, naming both', () => {
    const deployer = { CDK_DEFAULT_ACCOUNT: '123456789012', CDK_DEFAULT_REGION: 'us-west-2' };
    expect(() => environmentsFromContext(context({ productionRegion: 'eu-west-1' }), deployer)).toThrow(
      /region is eu-west-1 but this deploy targets us-west-2 \(CDK_DEFAULT_REGION: .*\): set AWS_REGION=eu-west-1 for the deploy/,
    );
    const [, production] = environmentsFromContext(context({ productionRegion: 'us-west-2' }), deployer);
    expect([production?.region, production?.env]).toEqual([
      'us-west-2',
      { account: '123456789012', region: 'us-west-2' },
    ]);
  });
});
