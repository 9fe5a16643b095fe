import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { addAnimalStoreStacks } from '../lib/animal-store-app';
import {
  type EnvironmentName,
  environmentsFromContext,
  reservedConcurrencyKey,
  servedByEdge,
} from '../lib/config/environments';
import type { PlatformAddressConfig } from '../lib/config/platform';
import { reservationOf } from './preflight-aws';

/**
 * What a deploy of one stage would create, read from the app itself: the stacks, each with its
 * region, the bootstrap version its template requires and the concurrency its functions
 * reserve. Synthesized in process as `cdk deploy` would, from the same context values, without
 * bundling the functions (the templates' numbers do not depend on the bundles).
 */

/** One stack a deploy of the stage creates or updates. */
export interface PlannedStack {
  readonly name: string;
  readonly region: string;
  /** The CDKToolkit version its template's CheckBootstrapVersion rule requires. */
  readonly bootstrapVersion: number;
  /** ReservedConcurrentExecutions of its functions, added up. */
  readonly reservedConcurrency: number;
}

/** What a deploy of a stage would do, as the checks need it. */
export interface DeployPlan {
  readonly stage: EnvironmentName;
  /** The stage's stacks with their dependencies, in deploy order. */
  readonly stacks: readonly PlannedStack[];
  /** The region the deploy targets (production's stated one, or the SDK's). */
  readonly region: string;
  readonly platformAddress?: PlatformAddressConfig;
  /** Whether the edge stack (CloudFront, us-east-1) is part of the deploy. */
  readonly edge: boolean;
  /** The context key that sets the stage's reservation, e.g. `productionReservedConcurrency`. */
  readonly reservedConcurrencyKey: string;
  /** The catch-all's reservation given (off when undefined). */
  readonly reservedConcurrency?: number;
}

const CDK_JSON = path.join(__dirname, '..', 'cdk.json');

/** cdk.json's context: the feature flags `cdk synth` gives the app. */
function cdkJsonContext(): Record<string, unknown> {
  return (JSON.parse(readFileSync(CDK_JSON, 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
}

/**
 * The plan of a deploy of `stage` from the account and region the deploy targets and the
 * context values given as `-c key=value`. Throws the configuration's own message when a value
 * is wrong (the region above all), as synth would.
 */
export function planDeploy(
  stage: EnvironmentName,
  context: Readonly<Record<string, string>>,
  target: { readonly account?: string; readonly region: string },
): DeployPlan {
  const values: Record<string, unknown> = {
    ...cdkJsonContext(),
    ...context,
    environments: stage,
    // No esbuild: the bundles change no number the checks read.
    'aws:cdk:bundling-stacks': [],
  };
  const [config] = environmentsFromContext((key) => values[key], {
    CDK_DEFAULT_ACCOUNT: target.account,
    CDK_DEFAULT_REGION: target.region,
  });
  if (!config) throw new Error(`No configuration for ${stage}.`);
  const app = new App({ context: values });
  addAnimalStoreStacks(app, { environments: [config] });
  const assembly = app.synth();
  try {
    const stacks = assembly.stacksRecursively.map((artifact) => {
      return {
        name: artifact.stackName,
        region: artifact.environment.region,
        bootstrapVersion: artifact.requiresBootstrapStackVersion ?? 0,
        reservedConcurrency: reservationOf(artifact.template as Parameters<typeof reservationOf>[0]),
      };
    });
    return {
      stage,
      stacks,
      region: config.region ?? target.region,
      ...(config.platformAddress ? { platformAddress: config.platformAddress } : {}),
      edge: servedByEdge(config),
      reservedConcurrencyKey: reservedConcurrencyKey(stage),
      ...(config.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrency: config.reservedConcurrency }),
    };
  } finally {
    rmSync(assembly.directory, { recursive: true, force: true });
  }
}
