import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addAnimalStoreStacks } from '../lib/animal-store-app';
import { environmentsFromContext } from '../lib/config/environments';

const app = new App();
// Synth fails on any AWS Solutions finding not acknowledged, with its reason, where the resource is made.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
addAnimalStoreStacks(app, {
  // -c environments=…, -c petsUpgradeStep=N, -c platformDomain=… -c platformHostedZoneId=…,
  // -c productionRegion=…
  // (lib/config/environments.ts says what each does).
  environments: environmentsFromContext((key) => app.node.tryGetContext(key)),
});
