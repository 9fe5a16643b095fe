import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { addAnimalStoreStacks } from '../../lib/animal-store-app';
import { ENVIRONMENT_NAMES, environmentConfigs } from '../../lib/config/environments';
import { testApp } from './synth';

/** Stack that adds the optional alarm topic, so the checks see it although no environment configures one. */
export const NAG_ALARM_EMAIL_STACK = 'AnimalStore-nag-alarm-email';

/** Production as the default configuration deploys it (no platform address, no edge), beside the one the edge serves. */
export const NAG_DEFAULT_PRODUCTION_STACK = 'AnimalStore-nag-production-default';

/** Production's region here: the environments' stacks are environment-agnostic and deploy there. */
export const NAG_PRODUCTION_REGION = 'eu-west-1';

/** One acknowledged rule: where, which finding, and why. */
export interface NagAcknowledgement {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

/** The result of synthesizing the app with the AWS Solutions checks as a validation plugin. */
export interface NagRun {
  readonly app: App;
  /** What synthesis threw (the plugin fails it on any finding), if anything. */
  readonly synthError?: Error;
  /** Every finding not acknowledged, as `rule at construct path: description`. */
  readonly findings: string[];
  /** Every acknowledgement in the app. */
  readonly acknowledgements: NagAcknowledgement[];
}

function acknowledgementsOf(root: IConstruct): NagAcknowledgement[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

/** Production's platform address here, as `-c platformDomain=… -c platformHostedZoneId=…` give it. */
const NAG_PLATFORM = { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' };

/**
 * Adds every stack the app can deploy to `app`, as `bin/animal-store.ts` composes them, for both
 * environments (production with a platform address, the wildcard, and a region, so the edge stack
 * is built), plus a staging copy with an alarm email and production in the default configuration
 * (no platform address), all environment-agnostic. The nag and IAM tests read these stacks.
 */
export function addEveryStack(app: App): void {
  const configs = environmentConfigs({});
  addAnimalStoreStacks(app, {
    environments: [
      // Production with a platform address and a stated region: the edge stack (us-east-1) is checked too.
      ...ENVIRONMENT_NAMES.map((name) =>
        name === 'production'
          ? { ...configs[name], platformAddress: NAG_PLATFORM, region: NAG_PRODUCTION_REGION }
          : configs[name],
      ),
      { ...configs.staging, stackName: NAG_ALARM_EMAIL_STACK, alarmEmail: 'oncall@example.com' },
      // After the production above, which is the one the app gives the edge stack.
      { ...configs.production, stackName: NAG_DEFAULT_PRODUCTION_STACK },
    ],
  });
}

/**
 * Composes every stack ({@link addEveryStack}) without bundling, registers the AWS Solutions
 * checks as the bin does and synthesizes. The findings come from running the same checks over the
 * synthesized tree, so a failure lists each one.
 */
export function runNag(): NagRun {
  const app = testApp();
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  addEveryStack(app);
  let synthError: Error | undefined;
  try {
    app.synth();
  } catch (error) {
    synthError = error as Error;
  }
  const report = new AwsSolutionsChecks().validateScope(app);
  const findings = report.violations.flatMap((violation) =>
    violation.violatingResources.map(
      (resource) => `${violation.ruleName} at ${resource.constructPath}: ${violation.description}`,
    ),
  );
  return { app, synthError, findings, acknowledgements: acknowledgementsOf(app) };
}
