import type { App } from 'aws-cdk-lib';
import { AccountStack, ACCOUNT_STACK_NAME } from './account-stack';
import { AnimalStoreStack } from './animal-store-stack';
import type { EnvironmentConfig } from './config/environments';
import { EDGE_STACK_NAME, EdgeStack, servedByEdge } from './edge-stack';

/** What {@link addAnimalStoreStacks} builds. */
export interface AnimalStoreStacksOptions {
  /** The environments to build, validated. */
  readonly environments: readonly EnvironmentConfig[];
}

/**
 * Every stack of the service, as `bin/animal-store.ts` and the nag test compose it: the
 * account stack, one stack per environment (each depending on the account stack), and the
 * edge stack in us-east-1 once production has a platform address and a stated region
 * (`-c productionRegion=…`), the region it hands over to.
 */
export function addAnimalStoreStacks(app: App, options: AnimalStoreStacksOptions): AnimalStoreStack[] {
  const [first] = options.environments;
  if (!first) return [];
  // Every environment is built for the same account and region (lib/config/environments.ts).
  const account = new AccountStack(app, ACCOUNT_STACK_NAME, { env: first.env });
  const stacks = options.environments.map((config) => {
    const stack = new AnimalStoreStack(app, config.stackName, { config });
    stack.addStackDependency(account, 'API Gateway needs the account CloudWatch role to write access logs');
    return stack;
  });
  const productionIndex = options.environments.findIndex((config) => config.name === 'production');
  const production = options.environments[productionIndex];
  if (production && servedByEdge(production)) {
    const edge = new EdgeStack(app, EDGE_STACK_NAME, {
      platform: production.platformAddress,
      serviceRegion: production.region,
      // The version production's WAF matches, so CloudFront sends that one.
      originSecretVersion: production.originSecretVersion,
      account: production.env?.account,
    });
    stacks[productionIndex]?.addStackDependency(
      edge,
      "the console function reads the distribution's ids from the SSM parameters the edge stack writes",
    );
  }
  return stacks;
}
