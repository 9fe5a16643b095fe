import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addAnimalStoreStacks } from '../lib/animal-store-app';
import { type EnvironmentConfig, environmentsFromContext } from '../lib/config/environments';

const app = new App();
// Synth fails on any AWS Solutions finding not acknowledged, with its reason, where the resource is made.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

/**
 * The configurations from -c environments=…, -c petsUpgradeStep=N, -c platformDomain=…
 * -c platformHostedZoneId=…, -c productionRegion=…, -c originSecretVersion=<VersionId> (after a
 * rotation of the edge's secret), -c stagingReservedConcurrency=N, -c productionReservedConcurrency=N,
 * -c signInEmailFrom=… -c signInEmailDomain=… (the console sign-in's email through SES);
 * lib/config/environments.ts says what each does. A bad value
 * stops synth with its message and fix alone: it is a typo to correct, not a fault to trace.
 */
function environments(): EnvironmentConfig[] {
  try {
    return environmentsFromContext((key) => app.node.tryGetContext(key));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

addAnimalStoreStacks(app, { environments: environments() });
