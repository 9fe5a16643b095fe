import type { App } from 'aws-cdk-lib';
import { AccountStack, ACCOUNT_STACK_NAME } from './account-stack';
import { AnimalStoreStack } from './animal-store-stack';
import { type DomainsConfig, platformAddressOf, platformDisagreements } from './config/domains';
import {
  type EnvironmentConfig,
  PLATFORM_ENVIRONMENTS,
  validateEnvironmentConfig,
} from './config/environments';
import { addProjectDomainStacks } from './domains-stack';
import { EDGE_STACK_NAME, EdgeStack, servedByEdge } from './edge-stack';

/** What {@link addAnimalStoreStacks} builds. */
export interface AnimalStoreStacksOptions {
  /** The environments to build, validated. */
  readonly environments: readonly EnvironmentConfig[];
  /**
   * The custom domains, when they are deployed from this app.
   * @default no domain stacks
   */
  readonly domains?: DomainsConfig;
}

/**
 * An environment's configuration with its platform address agreeing with the domains
 * configuration: taken from it when the environment has none (its domain stacks would
 * otherwise remove per-project addresses with nothing serving them), checked against it
 * when both give one.
 */
export function withDomainsPlatform(
  config: EnvironmentConfig,
  domains: DomainsConfig | undefined,
): EnvironmentConfig {
  if (!domains || !PLATFORM_ENVIRONMENTS.includes(config.name)) return config;
  if (!config.platformAddress) {
    const derived = { ...config, platformAddress: platformAddressOf(domains.platform) };
    validateEnvironmentConfig(derived);
    return derived;
  }
  const problems = platformDisagreements(domains.platform, config.platformAddress);
  if (problems.length > 0) {
    throw new Error(
      `The domains configuration and the platform address of environment "${config.name}" disagree:\n- ${problems.join('\n- ')}`,
    );
  }
  return config;
}

/**
 * Every stack of the service, as `bin/animal-store.ts` and the nag test compose it: the
 * account stack, one stack per environment (each depending on the account stack), each
 * environment's domain stacks (each depending on its environment's stack, which serves
 * every project's platform address), and the edge stack in us-east-1 once production has a
 * platform address and a stated region (`-c productionRegion=…`), the region it hands over to.
 */
export function addAnimalStoreStacks(app: App, options: AnimalStoreStacksOptions): AnimalStoreStack[] {
  const [first] = options.environments;
  if (!first) return [];
  // Every environment is built for the same account and region (lib/config/environments.ts).
  const account = new AccountStack(app, ACCOUNT_STACK_NAME, { env: first.env });
  const built: EnvironmentConfig[] = [];
  const stacks = options.environments.map((given) => {
    const config = withDomainsPlatform(given, options.domains);
    built.push(config);
    const stack = new AnimalStoreStack(app, config.stackName, { config });
    stack.addStackDependency(account, 'API Gateway needs the account CloudWatch role to write access logs');
    if (options.domains) {
      addProjectDomainStacks(app, config, options.domains, stack.api.restApi, stack.firewall.webAcl);
    }
    return stack;
  });
  const productionIndex = built.findIndex((config) => config.name === 'production');
  const production = built[productionIndex];
  if (production && servedByEdge(production)) {
    const edge = new EdgeStack(app, EDGE_STACK_NAME, {
      platform: production.platformAddress,
      serviceRegion: production.region,
      account: production.env?.account,
    });
    stacks[productionIndex]?.addStackDependency(
      edge,
      "the console function reads the distribution's ids from the SSM parameters the edge stack writes",
    );
  }
  return stacks;
}
