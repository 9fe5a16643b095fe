import { type App, type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { addAnimalStoreStacks } from '../../lib/animal-store-app';
import { ENVIRONMENT_NAMES, environmentConfigs } from '../../lib/config/environments';
import { ApiFunction } from '../../lib/constructs/api-function';
import { testApp } from './synth';
import { cachedSynthesis } from './synth-cache';

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

/** A stack of the synthesis of everything, as the checks read it. */
export interface SynthesizedStack {
  readonly stack: string;
  /** The region it deploys to: the environments' stacks, environment-agnostic, deploy to production's. */
  readonly region: string;
  /** Its template file, relative to the assembly's folder. */
  readonly templateFile: string;
}

/** A Lambda function of the app (an {@link ApiFunction}), as the IAM checks find it in its template. */
export interface SynthesizedFunction {
  /** `<stack name>/<construct path below the stack>`, e.g. `AnimalStore-production/Console/Function`. */
  readonly name: string;
  readonly stack: string;
  /** Its module under lambda/handlers/. */
  readonly handlerModule: string;
  readonly logicalId: string;
  readonly roleLogicalId: string;
}

/** What the checks read of the app's tree, as plain data. */
export interface EveryStackTree {
  /** The names of the stacks, in the app's order. */
  readonly stackNames: readonly string[];
  /** The paths of the app's children (its stacks and anything else at the top). */
  readonly topLevelPaths: readonly string[];
  /** Every construct's path. */
  readonly constructPaths: readonly string[];
  readonly stacks: readonly SynthesizedStack[];
  readonly functions: readonly SynthesizedFunction[];
  /** What synthesis threw (the nag plugin fails it on any finding; CDK's validation on an error), if anything. */
  readonly synthError?: string;
  /** Every finding of the AWS Solutions checks not acknowledged, as `rule at construct path: description`. */
  readonly findings: readonly string[];
  /** Every acknowledgement in the app. */
  readonly acknowledgements: readonly NagAcknowledgement[];
}

/** The synthesis of everything: the assembly's folder and what the checks read of the tree. */
export interface EveryStack extends EveryStackTree {
  readonly outdir: string;
}

function synthesizeEveryStack(outdir: string): EveryStackTree {
  const app = testApp({}, { validation: true, outdir });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  addEveryStack(app);
  let synthError: string | undefined;
  try {
    app.synth();
  } catch (error) {
    synthError = (error as Error).message;
  }
  const report = new AwsSolutionsChecks().validateScope(app);
  const stacks = app.node.children.filter(Stack.isStack);
  return {
    stackNames: stacks.map((stack) => stack.stackName),
    topLevelPaths: app.node.children.map((child) => child.node.path),
    constructPaths: app.node.findAll().map((construct) => construct.node.path),
    stacks: stacks.map((stack) => ({
      stack: stack.stackName,
      region: Token.isUnresolved(stack.region) ? NAG_PRODUCTION_REGION : stack.region,
      templateFile: stack.templateFile,
    })),
    functions: app.node
      .findAll()
      .filter((construct) => construct instanceof ApiFunction)
      .map((fn) => {
        const stack = Stack.of(fn);
        return {
          name: `${stack.stackName}/${fn.node.path.split('/').slice(1).join('/')}`,
          stack: stack.stackName,
          handlerModule: fn.handlerModule,
          logicalId: stack.getLogicalId(fn.node.defaultChild as CfnElement),
          roleLogicalId: stack.getLogicalId(fn.role?.node.defaultChild as CfnElement),
        };
      }),
    synthError,
    findings: report.violations.flatMap((violation) =>
      violation.violatingResources.map(
        (resource) => `${violation.ruleName} at ${resource.constructPath}: ${violation.description}`,
      ),
    ),
    acknowledgements: acknowledgementsOf(app),
  };
}

/**
 * Every stack ({@link addEveryStack}) composed without bundling, with the AWS Solutions checks
 * registered as the bin does and CDK's CloudFormation validation on, synthesized once per test
 * run for the nag, cfn-lint and IAM checks (test/support/synth-cache.ts). The findings come
 * from running the same checks over the synthesized tree, so a failure lists each one.
 */
export async function everyStack(): Promise<EveryStack> {
  const { outdir, result } = await cachedSynthesis(['everyStack'], synthesizeEveryStack);
  return { ...result, outdir };
}
