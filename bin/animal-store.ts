import { App } from 'aws-cdk-lib';
import { AnimalStoreStack } from '../lib/animal-store-stack';
import { domainsConfigFromContext } from '../lib/config/domains';
import { selectEnvironments } from '../lib/config/environments';
import { addProjectDomainStacks } from '../lib/domains-stack';

const app = new App();
// No `-c domainsConfig=<file>`: no domain stacks, so the default app touches no real domain.
const domains = domainsConfigFromContext(app.node.tryGetContext('domainsConfig'));
for (const config of selectEnvironments(app.node.tryGetContext('environments'))) {
  const stack = new AnimalStoreStack(app, config.stackName, { config });
  if (domains) addProjectDomainStacks(app, config, domains, stack.api.restApi);
}
