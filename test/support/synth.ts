import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addAnimalStoreStacks } from '../../lib/animal-store-app';
import { AnimalStoreStack } from '../../lib/animal-store-stack';
import {
  type EnvironmentConfig,
  type EnvironmentName,
  environmentConfigs,
} from '../../lib/config/environments';
import { EDGE_STACK_NAME } from '../../lib/edge-stack';
import { REPO_ROOT } from './processes';
import { cachedTemplate } from './synth-cache';

/** The context `cdk synth` gives the app from cdk.json: the feature flags above all. */
export const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

/**
 * An app as `cdk synth` makes it (cdk.json's context, so templates under test are those
 * deployed), without running esbuild (`aws:cdk:bundling-stacks` empty) and without CDK's
 * built-in CloudFormation validation, so tests stay fast: that validation compiles a 9 MB
 * WebAssembly engine in each process that synthesizes (about 5 s of CPU per test file, and
 * 13 s for every stack). It runs once per run over every stack the app deploys, in the
 * synthesis the nag and IAM tests share (test/support/nag-app.ts), and in the offline
 * `cdk synth` (test/lib/synth-offline.test.ts).
 */
export function testApp(
  context: Record<string, unknown> = {},
  { validation = false, outdir }: { readonly validation?: boolean; readonly outdir?: string } = {},
): App {
  return new App({
    context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context },
    builtinCloudFormationValidation: validation,
    ...(outdir === undefined ? {} : { outdir }),
  });
}

/** What a test changes in an environment's shipped configuration (an upgrade step, a platform address, alarms). */
export type EnvironmentChanges = Partial<
  Pick<
    EnvironmentConfig,
    'petsUpgradeStep' | 'platformAddress' | 'reservedConcurrency' | 'alarmTopicArn' | 'alarmEmail'
  >
>;

/**
 * Synthesizes one environment's stack in a {@link testApp}, environment-agnostic whatever the
 * shell sets, with its shipped configuration or that changed by `changes`. Templates are
 * immutable, so each configuration is synthesized once per test run (test/support/synth-cache.ts).
 */
export function synthEnvironment(name: EnvironmentName, changes: EnvironmentChanges = {}): Template {
  return cachedTemplate(['environment', name, changes], () => {
    const config = { ...environmentConfigs({})[name], ...changes };
    return Template.fromStack(new AnimalStoreStack(testApp(), config.stackName, { config }));
  });
}

/** Production's platform address in the tests, as `-c platformDomain=… -c platformHostedZoneId=…` give it. */
export const TEST_PLATFORM = { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' };

/**
 * Production as the edge serves it (a platform address and a stated region), changed by
 * `changes` (plain data), synthesized once per test run like {@link synthEnvironment}.
 */
export function productionWithEdge(changes: Partial<EnvironmentConfig> = {}): Template {
  return cachedTemplate(['productionWithEdge', changes], () => {
    const config = {
      ...environmentConfigs({}).production,
      platformAddress: TEST_PLATFORM,
      region: 'eu-west-1',
      ...changes,
    };
    return Template.fromStack(new AnimalStoreStack(testApp(), config.stackName, { config }));
  });
}

/**
 * The edge stack of the app that serves {@link productionWithEdge}'s production (that production
 * alone, composed by `addAnimalStoreStacks` as bin/ does), synthesized once per test run: the
 * console's and the sign-in domain's tests read it, and each built that app of its own.
 */
export function edgeOfProductionWithEdge(): Template {
  return cachedTemplate(['edgeOfProductionWithEdge'], () => {
    const app = testApp();
    const config = {
      ...environmentConfigs({}).production,
      platformAddress: TEST_PLATFORM,
      region: 'eu-west-1',
    };
    addAnimalStoreStacks(app, { environments: [config] });
    return Template.fromStack(app.node.findChild(EDGE_STACK_NAME) as Stack);
  });
}
