import { App } from 'aws-cdk-lib';
import { AnimalStoreStack } from '../lib/animal-store-stack';
import { selectEnvironments } from '../lib/config/environments';

const app = new App();
for (const config of selectEnvironments(app.node.tryGetContext('environments'))) {
  new AnimalStoreStack(app, config.stackName, { config });
}
