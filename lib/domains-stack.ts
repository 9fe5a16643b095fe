import { Stack, type StackProps } from 'aws-cdk-lib';
import type { IRestApi } from 'aws-cdk-lib/aws-apigateway';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { type EnvironmentConfig, type EnvironmentName, PLATFORM_ENVIRONMENTS } from './config/environments';
import { type DomainsConfig, type PlatformConfig, type ProjectConfig } from './config/domains';
import { ProjectDomains } from './constructs/project-domains';
import { TenantCertificates } from './constructs/tenant-certificates';

/** The environments that get domain stacks: a tenant's domain can point at one environment only. */
export const DOMAIN_ENVIRONMENTS: readonly EnvironmentName[] = PLATFORM_ENVIRONMENTS;

/** Properties of {@link ProjectDomainsStack}. */
export interface ProjectDomainsStackProps extends StackProps {
  /** The environment whose API the domains serve. */
  readonly environment: EnvironmentConfig;
  readonly platform: PlatformConfig;
  readonly project: ProjectConfig;
  /** The environment's REST API (from its AnimalStoreStack). */
  readonly restApi: IRestApi;
  /**
   * The environment's web ACL (from its AnimalStoreStack), put in front of the redirect API too.
   * @default no web ACL on the redirect API
   */
  readonly webAcl?: CfnWebACL;
}

/** Name of a project's domains stack, e.g. `AnimalStore-production-domains-acme`. */
export function domainsStackName(environment: Pick<EnvironmentConfig, 'stackName'>, project: string): string {
  return `${environment.stackName}-domains-${project}`;
}

/** Name of a project's certificates stack, e.g. `AnimalStore-production-certificates-birdhouse`. */
export function certificatesStackName(
  environment: Pick<EnvironmentConfig, 'stackName'>,
  project: string,
): string {
  return `${environment.stackName}-certificates-${project}`;
}

/** The project's domains whose DNS is outside Route 53 (their records are the tenant's to create). */
function externalDomains(project: ProjectConfig) {
  return project.domains.filter((domain) => domain.zone.hostedZoneId === undefined);
}

/** Properties of {@link ProjectCertificatesStack}. */
export interface ProjectCertificatesStackProps extends StackProps {
  readonly environment: EnvironmentConfig;
  readonly project: ProjectConfig;
}

/**
 * The certificates of a project's domains outside Route 53, requested without waiting:
 * this stack completes at once, and its outputs give the tenant each validation record
 * while the domains stack waits for the certificates to be issued.
 */
export class ProjectCertificatesStack extends Stack {
  public readonly certificates: TenantCertificates;

  constructor(scope: Construct, id: string, props: ProjectCertificatesStackProps) {
    const { environment, project } = props;
    super(scope, id, {
      description: `Animal Store Service (${environment.name}): certificates of project ${project.name} (DNS elsewhere)`,
      ...props,
      stackName: certificatesStackName(environment, project.name),
      env: environment.env,
    });
    this.certificates = new TenantCertificates(this, 'Certificates', {
      environmentStackName: environment.stackName,
      domains: externalDomains(project),
      logRetention: environment.logRetention,
      logRemovalPolicy: environment.removalPolicy,
    });
  }
}

/**
 * One project's addresses in their own stack: a certificate that waits for a tenant's
 * validation record blocks only this stack, never the API's or another tenant's.
 */
export class ProjectDomainsStack extends Stack {
  public readonly domains: ProjectDomains;

  constructor(scope: Construct, id: string, props: ProjectDomainsStackProps) {
    const { environment, platform, project } = props;
    super(scope, id, {
      description: `Animal Store Service (${environment.name}): addresses of project ${project.name}`,
      ...props,
      stackName: domainsStackName(environment, project.name),
      env: environment.env,
    });
    this.domains = new ProjectDomains(this, 'Domains', {
      environmentStackName: environment.stackName,
      platform,
      project,
      restApi: props.restApi,
      logRetention: environment.logRetention,
      logRemovalPolicy: environment.removalPolicy,
      webAcl: props.webAcl,
    });
  }
}

/**
 * Creates the domain stacks of an environment, one per project, each after its project's
 * certificates stack when some of its DNS is elsewhere; none outside {@link DOMAIN_ENVIRONMENTS}.
 */
export function addProjectDomainStacks(
  scope: Construct,
  environment: EnvironmentConfig,
  config: DomainsConfig,
  restApi: IRestApi,
  webAcl?: CfnWebACL,
): (ProjectDomainsStack | ProjectCertificatesStack)[] {
  if (!DOMAIN_ENVIRONMENTS.includes(environment.name)) return [];
  return config.projects.flatMap((project) => {
    const stackName = domainsStackName(environment, project.name);
    const domainsStack = new ProjectDomainsStack(scope, stackName, {
      environment,
      platform: config.platform,
      project,
      restApi,
      webAcl,
    });
    const environmentStack = Stack.of(restApi);
    if (environmentStack !== domainsStack) {
      // Said, not only implied by the API's exports: when a project's own default address
      // leaves its domains stack, the wildcard that replaces it must already serve.
      domainsStack.addStackDependency(
        environmentStack,
        "the environment's stack serves every project address (the wildcard); it deploys first",
      );
    }
    if (externalDomains(project).length === 0) return [domainsStack];
    const certificatesStack = new ProjectCertificatesStack(
      scope,
      certificatesStackName(environment, project.name),
      { environment, project },
    );
    domainsStack.addStackDependency(
      certificatesStack,
      'the domains outside Route 53 use the certificates this stack requests',
    );
    return [domainsStack, certificatesStack];
  });
}
