import { Stack, type StackProps } from 'aws-cdk-lib';
import type { IRestApi } from 'aws-cdk-lib/aws-apigateway';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import type { EnvironmentConfig, EnvironmentName } from './config/environments';
import { type DomainsConfig, type PlatformConfig, type ProjectConfig } from './config/domains';
import { ProjectDomains } from './constructs/project-domains';

/** The environments that get domain stacks: a tenant's domain can point at one environment only. */
export const DOMAIN_ENVIRONMENTS: readonly EnvironmentName[] = ['production'];

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
      platform,
      project,
      restApi: props.restApi,
      logRetention: environment.logRetention,
      logRemovalPolicy: environment.removalPolicy,
      webAcl: props.webAcl,
    });
  }
}

/** Creates the domain stacks of an environment, one per project; none outside {@link DOMAIN_ENVIRONMENTS}. */
export function addProjectDomainStacks(
  scope: Construct,
  environment: EnvironmentConfig,
  config: DomainsConfig,
  restApi: IRestApi,
  webAcl?: CfnWebACL,
): ProjectDomainsStack[] {
  if (!DOMAIN_ENVIRONMENTS.includes(environment.name)) return [];
  return config.projects.map((project) => {
    const stackName = domainsStackName(environment, project.name);
    return new ProjectDomainsStack(scope, stackName, {
      environment,
      platform: config.platform,
      project,
      restApi,
      webAcl,
    });
  });
}
