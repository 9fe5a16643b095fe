import type { App } from 'aws-cdk-lib';
import { AccountStack, ACCOUNT_STACK_NAME } from './account-stack';
import { AnimalStoreStack } from './animal-store-stack';
import type { DomainsConfig } from './config/domains';
import type { EnvironmentConfig } from './config/environments';
import { addProjectDomainStacks } from './domains-stack';

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
 * Every stack of the service, as `bin/animal-store.ts` and the nag test compose it: the
 * account stack, one stack per environment (each depending on the account stack), and
 * each environment's domain stacks.
 */
export function addAnimalStoreStacks(app: App, options: AnimalStoreStacksOptions): AnimalStoreStack[] {
  const [first] = options.environments;
  if (!first) return [];
  // Every environment is built for the same account and region (lib/config/environments.ts).
  const account = new AccountStack(app, ACCOUNT_STACK_NAME, { env: first.env });
  return options.environments.map((config) => {
    const stack = new AnimalStoreStack(app, config.stackName, { config });
    stack.addStackDependency(account, 'API Gateway needs the account CloudWatch role to write access logs');
    if (options.domains) {
      addProjectDomainStacks(app, config, options.domains, stack.api.restApi, stack.firewall.webAcl);
    }
    return stack;
  });
}
