import {
  CfnOutput,
  CfnWaitConditionHandle,
  CustomResource,
  Duration,
  type RemovalPolicy,
  Validations,
} from 'aws-cdk-lib';
import {
  type CfnDomainName,
  DomainName,
  EndpointType,
  type IRestApi,
  LambdaRestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  AaaaRecord,
  ARecord,
  CnameRecord,
  HostedZone,
  type IHostedZone,
  RecordTarget,
} from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { type CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { REDIRECT_TARGET_ENV } from '../../lambda/handlers/redirect';
import {
  cnameTarget,
  type CustomDomainConfig,
  formatTenantRecord,
  isApex,
  type PlatformConfig,
  primaryHost,
  type ProjectConfig,
  TENANT_RECORD_TTL_SECONDS,
  tenantDnsRecord,
} from '../config/domains';
import { ApiFunction, functionLogGroup } from './api-function';
import { ApiStageLogs } from './api-stage-logs';
import { acknowledgeProviderFramework, certificateArnParameter } from './tenant-certificates';

/** Properties of {@link ProjectDomains}. */
export interface ProjectDomainsProps {
  /**
   * Stack name of the environment the domains serve: names the parameters holding the
   * certificates of domains whose DNS is outside Route 53 (lib/constructs/tenant-certificates.ts).
   */
  readonly environmentStackName: string;
  /** The platform's domain, zone and CNAME target domain. */
  readonly platform: PlatformConfig;
  /** The project (tenant) and its custom domains. */
  readonly project: ProjectConfig;
  /** The environment's REST API; every serving domain maps its empty base path to its deployment stage. */
  readonly restApi: IRestApi;
  /**
   * Retention of the redirect function's log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the redirect function's log group when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * The environment's web ACL, also put in front of the redirect API's stage.
   * @default no web ACL on the redirect API
   */
  readonly webAcl?: CfnWebACL;
}

/** Stage of a project's redirect API (never part of a URL: only custom domains reach it). */
const REDIRECT_STAGE = 'redirect';

/** The redirect API is public by design and takes any request; each acknowledgement says why. */
function acknowledgePublicRedirects(api: LambdaRestApi): void {
  Validations.of(api).acknowledge(
    {
      id: 'AwsSolutions-APIG2',
      reason:
        'The redirect API takes any method, path and query and no body: it answers 301 to the same path and ' +
        'query on a host from configuration, so there is no request shape to validate (the function URL-encodes ' +
        'what it copies).',
    },
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'Public by design: browsers and API clients follow a 301 without credentials, and the answer reveals ' +
        'nothing but the primary domain, which is public.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'Public by design: a redirect must work for anyone who follows it, so there is no user to authenticate ' +
        'against a Cognito user pool.',
    },
  );
}

/**
 * The custom domains of one project, each with an ACM certificate (DNS validation), an API
 * Gateway regional custom domain (TLS 1.2) whose empty base path maps to the API stage, its
 * target `<domain>.<cnameTargetDomain>` in the platform zone, and its records where its
 * zone is in Route 53. Redirect domains map to a one-function API that answers 301. The
 * project's platform address `<project>.<platform domain>` is not here: the environment's
 * stack serves every project's at once (lib/constructs/project-addresses.ts).
 */
export class ProjectDomains extends Construct {
  /** The API Gateway custom domain of each custom domain, by host name. */
  public readonly domainNames: ReadonlyMap<string, DomainName>;
  /** The function answering 301 on the redirect domains, if the project has any. */
  public readonly redirectFunction?: ApiFunction;

  private readonly platformZone: IHostedZone;
  private readonly environmentStackName: string;
  private readonly logProps: Pick<ProjectDomainsProps, 'logRetention' | 'logRemovalPolicy'>;
  private waiter?: { provider: Provider; isComplete: ApiFunction };
  private readonly tenantZones = new Map<string, IHostedZone>();
  private readonly domains = new Map<string, DomainName>();

  constructor(scope: Construct, id: string, props: ProjectDomainsProps) {
    super(scope, id);
    const { platform, project } = props;
    this.environmentStackName = props.environmentStackName;
    this.logProps = { logRetention: props.logRetention, logRemovalPolicy: props.logRemovalPolicy };
    this.platformZone = HostedZone.fromHostedZoneAttributes(this, 'PlatformZone', {
      hostedZoneId: platform.hostedZone.id,
      zoneName: platform.hostedZone.name,
    });

    const redirects = project.domains.filter((domain) => domain.role === 'redirect');
    let redirectApi: LambdaRestApi | undefined;
    if (redirects.length > 0) {
      const target = primaryHost(platform, project);
      this.redirectFunction = new ApiFunction(this, 'RedirectFunction', {
        handlerModule: 'redirect',
        memorySize: 128,
        description: `301 to https://${target} for the redirect domains of project ${project.name}`,
        environment: { [REDIRECT_TARGET_ENV]: target },
        logRetention: props.logRetention,
        logRemovalPolicy: props.logRemovalPolicy,
      });
      const logs = new ApiStageLogs(this, 'RedirectApiLogs', {
        retention: props.logRetention,
        removalPolicy: props.logRemovalPolicy,
      });
      redirectApi = new LambdaRestApi(this, 'RedirectApi', {
        restApiName: `${project.name}-redirects`,
        description: `Redirect domains of project ${project.name}: 301 to https://${target}`,
        handler: this.redirectFunction,
        endpointTypes: [EndpointType.REGIONAL],
        // Reached only through the redirect domains.
        disableExecuteApiEndpoint: true,
        // The account's logging role belongs to ApiGatewayAccountStack.
        cloudWatchRole: false,
        deployOptions: { stageName: REDIRECT_STAGE, ...logs.stageOptions },
      });
      logs.addExecutionLogs(redirectApi, REDIRECT_STAGE);
      redirectApi.node.tryRemoveChild('Endpoint');
      if (props.webAcl) {
        new CfnWebACLAssociation(this, 'RedirectApiFirewall', {
          resourceArn: redirectApi.deploymentStage.stageArn,
          webAclArn: props.webAcl.attrArn,
        });
      }
      acknowledgePublicRedirects(redirectApi);
    }

    for (const domain of project.domains) {
      const scopeOfDomain = new Construct(this, domain.name);
      const zone = this.tenantZone(domain);
      const apiGatewayDomain = this.customDomain(scopeOfDomain, domain.name, zone);
      apiGatewayDomain.addBasePathMapping(
        domain.role === 'redirect' && redirectApi ? redirectApi : props.restApi,
      );
      this.aliasRecords(
        scopeOfDomain,
        this.platformZone,
        cnameTarget(platform, domain.name),
        apiGatewayDomain,
        'Target',
      );
      this.tenantRecords(scopeOfDomain, platform, domain, zone, apiGatewayDomain);
    }
    this.domainNames = this.domains;
    if (project.domains.length === 0) {
      // A stack needs a resource. The project's stack exists before its first custom domain
      // (the domains tool adds one after a deploy), and an upgraded stack empties this way.
      new CfnWaitConditionHandle(this, 'NoCustomDomains');
    }
  }

  private tenantZone(domain: CustomDomainConfig): IHostedZone | undefined {
    const { hostedZoneId, name } = domain.zone;
    if (hostedZoneId === undefined) return undefined;
    let zone = this.tenantZones.get(name);
    if (!zone) {
      zone = HostedZone.fromHostedZoneAttributes(this, `Zone-${name}`, { hostedZoneId, zoneName: name });
      this.tenantZones.set(name, zone);
    }
    return zone;
  }

  /**
   * Certificate and regional custom domain. With the zone in Route 53 the certificate is
   * CloudFormation's own, validated there; otherwise it is the one the project's
   * certificates stack requested, and the domain waits until the tenant's validation
   * record has got it issued.
   */
  private customDomain(scope: Construct, host: string, zone: IHostedZone | undefined): DomainName {
    const certificate = zone
      ? new Certificate(scope, 'Certificate', {
          domainName: host,
          validation: CertificateValidation.fromDns(zone),
        })
      : this.issuedTenantCertificate(scope, host);
    const domain = new DomainName(scope, 'Domain', {
      domainName: host,
      certificate,
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    // Dual-stack, so the AAAA aliases answer with IPv6 addresses.
    (domain.node.defaultChild as CfnDomainName).addPropertyOverride(
      'EndpointConfiguration.IpAddressType',
      'dualstack',
    );
    new CfnOutput(scope, 'CertificateArn', {
      description: `ACM certificate of ${host}`,
      value: certificate.certificateArn,
    });
    this.domains.set(host, domain);
    return domain;
  }

  /** The requested certificate of a domain outside Route 53, once ACM has issued it. */
  private issuedTenantCertificate(scope: Construct, host: string): ICertificate {
    const requestedArn = StringParameter.valueForStringParameter(
      scope,
      certificateArnParameter(this.environmentStackName, host),
    );
    const { provider, isComplete } = this.certificateWaiter();
    isComplete.addToRolePolicy(
      new PolicyStatement({
        actions: ['acm:DescribeCertificate', 'acm:ListTagsForCertificate', 'acm:DeleteCertificate'],
        resources: [requestedArn],
      }),
    );
    const issued = new CustomResource(scope, 'CertificateIssued', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::CertificateIssued',
      properties: { CertificateArn: requestedArn },
    });
    // Its physical id is the ARN: the API Gateway domain that uses it waits for the issue.
    return Certificate.fromCertificateArn(scope, 'Certificate', issued.ref);
  }

  /** One waiter per project: polls ACM every minute, for at most an hour per deploy. */
  private certificateWaiter(): { provider: Provider; isComplete: ApiFunction } {
    if (this.waiter) return this.waiter;
    const common = { handlerModule: 'certificate-issued', memorySize: 128, ...this.logProps };
    const onEvent = new ApiFunction(this, 'CertificateWaiterStart', {
      ...common,
      handlerName: 'onEvent',
      description: 'Starts the wait for a tenant certificate',
    });
    const isComplete = new ApiFunction(this, 'CertificateWaiterCheck', {
      ...common,
      handlerName: 'isComplete',
      description: 'Checks whether a tenant certificate is issued (deletes it when its domain is removed)',
    });
    const provider = new Provider(this, 'CertificateWaiter', {
      onEventHandler: onEvent,
      isCompleteHandler: isComplete,
      queryInterval: Duration.minutes(1),
      // The Provider framework's limit: a tenant who needs longer deploys again once the record is in.
      totalTimeout: Duration.hours(1),
      logGroup: functionLogGroup(this, 'CertificateWaiterLogs', this.logProps),
    });
    acknowledgeProviderFramework(provider);
    this.waiter = { provider, isComplete };
    return this.waiter;
  }

  private aliasRecords(
    scope: Construct,
    zone: IHostedZone,
    name: string,
    domain: DomainName,
    prefix = '',
  ): void {
    const target = RecordTarget.fromAlias(new ApiGatewayDomain(domain));
    new ARecord(scope, `${prefix}AliasA`, { zone, recordName: `${name}.`, target });
    new AaaaRecord(scope, `${prefix}AliasAaaa`, { zone, recordName: `${name}.`, target });
  }

  /** The tenant's own record: created in Route 53 when the zone is there, else listed as an output. */
  private tenantRecords(
    scope: Construct,
    platform: PlatformConfig,
    domain: CustomDomainConfig,
    zone: IHostedZone | undefined,
    apiGatewayDomain: DomainName,
  ): void {
    if (zone && isApex(domain)) {
      // Route 53's ALIAS: the apex answers with the regional endpoint's own addresses.
      this.aliasRecords(scope, zone, domain.name, apiGatewayDomain);
    } else if (zone) {
      new CnameRecord(scope, 'Cname', {
        zone,
        recordName: `${domain.name}.`,
        domainName: cnameTarget(platform, domain.name),
        ttl: Duration.seconds(TENANT_RECORD_TTL_SECONDS),
      });
    } else {
      new CfnOutput(scope, 'DnsRecord', {
        description: `Record to add at the DNS provider of ${domain.zone.name}`,
        value: formatTenantRecord(tenantDnsRecord(platform, domain)),
      });
    }
  }
}
