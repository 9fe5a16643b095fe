import { type Environment, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { MAX_API_KEY_CACHE_SECONDS } from '../../lambda/api/limits';
import { PETS_UPGRADE_STEPS, type PetsUpgradeStepNumber } from '../../lambda/store/table-schema';
import { type PlatformAddressConfig, platformAddressFromContext, platformAddressProblems } from './platform';
import { productionRegionFromContext, regionProblems } from './regions';
import { edgeSettingProblems, originSecretVersionFromContext } from './edge-settings';
import { type SignInEmailConfig, signInEmailFromContext } from './sign-in-email';
import { SELF_SERVICE_CONTEXT, selfServiceFromContext } from './self-service';
import type { SelfServiceSettings } from '../../lambda/core/self-service-settings';

/** A Secrets Manager version id (lib/config/edge-settings.ts). */
export { SECRET_VERSION_ID } from './edge-settings';

/** The deployable environments, in deployment order. */
export const ENVIRONMENT_NAMES = ['staging', 'production'] as const;

/** Name of a deployable environment. */
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

/**
 * The environments that publish projects at addresses of the platform domain (and serve
 * custom domains): a tenant's address can point at one environment only.
 */
export const PLATFORM_ENVIRONMENTS: readonly EnvironmentName[] = ['production'];

/** The upgrade steps of a deployed pets table, in deploy order (lambda/store/table-schema.ts). */
export const PETS_UPGRADE_STEP_NUMBERS = Object.keys(PETS_UPGRADE_STEPS).map(
  Number,
) as PetsUpgradeStepNumber[];

/** Lambda's own bounds for memory size, in MB. */
const LAMBDA_MEMORY_MB = { min: 128, max: 10_240 } as const;

/** Everything that differs between environments; the stack reads nothing else. */
export interface EnvironmentConfig {
  /** Environment name, also the API Gateway stage name (so URLs read `/staging/v1`, `/production/v1`). */
  readonly name: EnvironmentName;
  /** CloudFormation stack name, e.g. `AnimalStore-staging`. */
  readonly stackName: string;
  /** API Gateway stage name. */
  readonly stageName: string;
  /** What happens to tables and log groups when the stack deletes them. */
  readonly removalPolicy: RemovalPolicy;
  /** DynamoDB deletion protection on every table. */
  readonly deletionProtection: boolean;
  /** Retention of every Lambda log group. */
  readonly logRetention: RetentionDays;
  /** Memory of every function, in MB (also scales its CPU share). */
  readonly lambdaMemoryMb: number;
  /** Seconds the authorizer caches an API key lookup (0 to {@link MAX_API_KEY_CACHE_SECONDS}). */
  readonly apiKeyCacheSeconds: number;
  /**
   * Email address that alarm notifications go to, through an SNS topic the stack creates
   * (encrypted, TLS only); the address confirms the subscription once. At most one of
   * alarmEmail and alarmTopicArn.
   * @default no notifications: alarms change state on the dashboard only
   */
  readonly alarmEmail?: string;
  /**
   * Existing standard SNS topic (e.g. the on-call tool's) that alarms notify, in the
   * stack's account and region. Its policy must let cloudwatch.amazonaws.com publish, and a
   * KMS key encrypting it must let CloudWatch use it.
   * @default no notifications: alarms change state on the dashboard only
   */
  readonly alarmTopicArn?: string;
  /**
   * The step at which the environment's pets table is in its upgrade to project-scoped
   * indexes (PETS_UPGRADE_STEPS in lambda/store/table-schema.ts, doc/deploying.md): the
   * table is deployed with that step's indexes, and reads use what exists at it.
   * @default the upgrade is done: the final table
   */
  readonly petsUpgradeStep?: PetsUpgradeStepNumber;
  /**
   * Where projects get their addresses (`<project>.<domain>`): the stack deploys the
   * wildcard certificate, custom domain and alias, and the authorizer tells projects apart
   * by host. Only in {@link PLATFORM_ENVIRONMENTS}.
   * @default no project addresses: the execute-api base URL serves every project
   */
  readonly platformAddress?: PlatformAddressConfig;
  /**
   * The environment's region, stated: the edge stack (us-east-1) hands its values over to it
   * through SSM parameters written there, so it must be known at synth, offline. A deploy to
   * another region (`env.region`, from CDK_DEFAULT_REGION) fails synth. Production's is given
   * as `-c productionRegion=eu-west-1`.
   * @default not stated: no edge stack
   */
  readonly region?: string;
  /**
   * The version of the edge's origin secret that CloudFront sends and production's WAF
   * matches: its VersionId, put in every `{{resolve:secretsmanager:…}}` reference to the
   * secret. CloudFormation re-reads a dynamic reference only when its text changes, so a
   * rotation reaches CloudFront and the WAF only through a new version id here
   * (doc/domains.md, "Rotating the origin secret"). Given as
   * `-c originSecretVersion=<VersionId>`; only where the edge serves the environment.
   * @default the references name no version: AWSCURRENT when first resolved
   */
  readonly originSecretVersion?: string;
  /**
   * The console's sign-in email through Amazon SES: turns on one-time email codes in the user
   * pool (doc/identity.md). Given as `-c signInEmailFrom=<address>` (and `-c signInEmailDomain=…`);
   * only where the edge serves the environment, as the pool does.
   * @default Cognito's own email: no email codes
   */
  readonly signInEmail?: SignInEmailConfig;
  /**
   * Concurrent executions reserved for the catch-all, which are also its ceiling under floods of
   * junk; where the stale-tenant sweep runs, it reserves 1 more (one run at a time). Lambda keeps
   * 100 of an account's regional quota unreserved, or the whole quota where it is below 100 (new
   * accounts often have 10), so any reservation fails the deploy on the smallest quota. Given as
   * `-c <environment>ReservedConcurrency=N` (e.g. `-c productionReservedConcurrency=10`) once
   * the quota allows it (doc/deploying.md says what stands in for it while it is off).
   * @default off: nothing reserved
   */
  readonly reservedConcurrency?: number;
  /**
   * People's own projects through the console (issue 27): on or off, and the platform cap (each
   * project takes one of API Gateway's 10,000 keys per account and region). Given as
   * `-c selfService=off` and `-c selfServiceProjectCap=N`; only where the console function is.
   * @default DEFAULT_SELF_SERVICE: on, 2,000 projects
   */
  readonly selfService?: SelfServiceSettings;
  /**
   * Account and region to deploy to.
   * @default environment-agnostic, when CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION are unset
   */
  readonly env?: Environment;
}

/**
 * Whether the edge serves an environment: production, once it has a platform address and a
 * stated region (where the edge stack hands its ids over). The app builds the edge stack, and
 * the environment's stack its console function, on this one condition.
 */
export function servedByEdge(
  config: Pick<EnvironmentConfig, 'name' | 'platformAddress' | 'region'>,
): config is EnvironmentConfig & { platformAddress: PlatformAddressConfig; region: string } {
  return config.name === 'production' && config.platformAddress !== undefined && config.region !== undefined;
}

/** Variables of the process environment the configuration reads. */
export interface ConfigSource {
  readonly CDK_DEFAULT_ACCOUNT?: string;
  readonly CDK_DEFAULT_REGION?: string;
}

function targetEnvironment(source: ConfigSource): Environment | undefined {
  const account = source.CDK_DEFAULT_ACCOUNT || undefined;
  const region = source.CDK_DEFAULT_REGION || undefined;
  return account || region ? { account, region } : undefined;
}

/** Builds the configuration of every environment. */
export function environmentConfigs(
  source: ConfigSource = process.env,
): Record<EnvironmentName, EnvironmentConfig> {
  const env = targetEnvironment(source);
  return {
    staging: {
      name: 'staging',
      stackName: 'AnimalStore-staging',
      stageName: 'staging',
      removalPolicy: RemovalPolicy.DESTROY,
      deletionProtection: false,
      logRetention: RetentionDays.TWO_WEEKS,
      lambdaMemoryMb: 512,
      apiKeyCacheSeconds: 30,
      env,
    },
    production: {
      name: 'production',
      stackName: 'AnimalStore-production',
      stageName: 'production',
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
      logRetention: RetentionDays.SIX_MONTHS,
      lambdaMemoryMb: 1024,
      apiKeyCacheSeconds: 30,
      env,
    },
  };
}

/**
 * Checks a configuration and throws one error listing every bad value with its fix, so a
 * mistake stops `cdk synth` instead of reaching CloudFormation or production.
 */
export function validateEnvironmentConfig(config: EnvironmentConfig): void {
  const problems: string[] = [];
  const where = `environment "${config.name}" (lib/config/environments.ts)`;
  if (config.stageName !== config.name) {
    problems.push(`stageName is "${config.stageName}": set it to "${config.name}", the environment name.`);
  }
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(config.stackName)) {
    problems.push(
      `stackName is "${config.stackName}": use letters, digits and hyphens, starting with a letter (max 128).`,
    );
  }
  const { apiKeyCacheSeconds: cache, lambdaMemoryMb: memory } = config;
  if (!Number.isInteger(cache) || cache < 0 || cache > MAX_API_KEY_CACHE_SECONDS) {
    problems.push(
      `apiKeyCacheSeconds is ${cache}: use a whole number from 0 to ${MAX_API_KEY_CACHE_SECONDS} (30 is the default); ` +
        'it bounds how long a revoked key keeps working.',
    );
  }
  if (!Number.isInteger(memory) || memory < LAMBDA_MEMORY_MB.min || memory > LAMBDA_MEMORY_MB.max) {
    problems.push(
      `lambdaMemoryMb is ${memory}: use a whole number of MB from ${LAMBDA_MEMORY_MB.min} to ${LAMBDA_MEMORY_MB.max}.`,
    );
  }
  if (
    config.name === 'production' &&
    (config.removalPolicy !== RemovalPolicy.RETAIN || !config.deletionProtection)
  ) {
    problems.push(
      'production must keep its data: set removalPolicy to RemovalPolicy.RETAIN and deletionProtection to true.',
    );
  }
  if (config.alarmEmail !== undefined && config.alarmTopicArn !== undefined) {
    problems.push(
      'alarmEmail and alarmTopicArn are both set: keep one (the topic can have the email subscribed).',
    );
  }
  if (config.alarmEmail !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(config.alarmEmail)) {
    problems.push(`alarmEmail is "${config.alarmEmail}": use one email address, e.g. oncall@example.com.`);
  }
  if (
    config.alarmTopicArn !== undefined &&
    !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(config.alarmTopicArn)
  ) {
    problems.push(
      `alarmTopicArn is "${config.alarmTopicArn}": use the ARN of a standard (not FIFO) SNS topic, ` +
        'e.g. arn:aws:sns:eu-west-1:123456789012:animal-store-alarms.',
    );
  }
  const step = config.petsUpgradeStep;
  if (step !== undefined && !PETS_UPGRADE_STEP_NUMBERS.includes(step)) {
    problems.push(
      `petsUpgradeStep is ${JSON.stringify(step)}: use one of ${PETS_UPGRADE_STEP_NUMBERS.join(', ')}, or leave it out once the upgrade is done (doc/deploying.md).`,
    );
  }
  if (config.platformAddress !== undefined) {
    if (!PLATFORM_ENVIRONMENTS.includes(config.name)) {
      problems.push(
        `platformAddress is set: only ${PLATFORM_ENVIRONMENTS.join(', ')} publishes project addresses; leave it out.`,
      );
    }
    problems.push(...platformAddressProblems(config.platformAddress));
  }
  const reserved = config.reservedConcurrency;
  if (reserved !== undefined && (!Number.isInteger(reserved) || reserved < 1)) {
    problems.push(
      `reservedConcurrency is ${JSON.stringify(reserved)}: use a whole number of at least 1 (10 is enough for the catch-all), ` +
        'or leave it out while the Lambda concurrency quota is below 100 plus what the environments reserve.',
    );
  }
  problems.push(...regionProblems(config));
  problems.push(...edgeSettingProblems(config, servedByEdge(config)));
  if (problems.length > 0) {
    // One problem reads on one line; several, one line each.
    const list = problems.length === 1 ? ` ${problems[0]}` : `\n- ${problems.join('\n- ')}`;
    throw new Error(`Invalid configuration of ${where}:${list}`);
  }
}

function isEnvironmentName(value: string): value is EnvironmentName {
  return (ENVIRONMENT_NAMES as readonly string[]).includes(value);
}

/** The environment names a selection (`-c environments=staging,production`) names, in its order; all when unset. */
function selectedNames(selection: unknown): EnvironmentName[] {
  if (selection === undefined || selection === '') return [...ENVIRONMENT_NAMES];
  const known = ENVIRONMENT_NAMES.join(', ');
  if (typeof selection !== 'string') {
    throw new Error(
      `Context value "environments" is ${JSON.stringify(selection)}: pass a comma-separated list of ${known}.`,
    );
  }
  const names = [...new Set(selection.split(',').map((name) => name.trim()))];
  return names.map((name) => {
    if (!isEnvironmentName(name)) {
      throw new Error(
        `Unknown environment "${name}" in context value "environments": use one or more of ${known}, e.g. -c environments=staging.`,
      );
    }
    return name;
  });
}

/**
 * The validated configurations selected by the `environments` context value
 * (`cdk synth -c environments=staging`, comma-separated); all of them when it is unset.
 */
export function selectEnvironments(
  selection: unknown,
  source: ConfigSource = process.env,
): EnvironmentConfig[] {
  return environmentsFromContext((key) => (key === 'environments' ? selection : undefined), source);
}

/** Reads one context value, as `app.node.tryGetContext` does. */
export type ContextReader = (key: string) => unknown;

/** The pets upgrade step given as `-c petsUpgradeStep=N`; undefined when unset. */
function petsUpgradeStepFromContext(value: unknown): PetsUpgradeStepNumber | undefined {
  if (value === undefined || value === '') return undefined;
  const step = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (!PETS_UPGRADE_STEP_NUMBERS.includes(step as PetsUpgradeStepNumber)) {
    throw new Error(
      `Context value "petsUpgradeStep" is ${JSON.stringify(value)}: use one of ${PETS_UPGRADE_STEP_NUMBERS.join(', ')} ` +
        '(doc/deploying.md gives the sequence), or leave it out once the upgrade is done.',
    );
  }
  return step as PetsUpgradeStepNumber;
}

/** The context key of an environment's reserved concurrency: `stagingReservedConcurrency`, `productionReservedConcurrency`. */
export function reservedConcurrencyKey(name: EnvironmentName): string {
  return `${name}ReservedConcurrency`;
}

/** An environment's reserved concurrency given as `-c <name>ReservedConcurrency=N`; undefined (off) when unset. */
function reservedConcurrencyFromContext(name: EnvironmentName, value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  const count = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
    throw new Error(
      `Context value "${reservedConcurrencyKey(name)}" is ${JSON.stringify(value)}: give a whole number of at least 1, ` +
        `e.g. -c ${reservedConcurrencyKey(name)}=10, or leave it out (the default: nothing reserved; doc/deploying.md).`,
    );
  }
  return count;
}

/**
 * The validated configurations the app builds, from its context values:
 * - `environments`: which ones (comma-separated; all when unset);
 * - `petsUpgradeStep`: the pets table's upgrade step, for one environment at a time
 *   (`-c environments=production -c petsUpgradeStep=2`), so a step meant for one table
 *   never reaches another's; unset, the upgrade is done;
 * - `platformDomain` and `platformHostedZoneId`: the platform address, for the selected
 *   environments of {@link PLATFORM_ENVIRONMENTS} (ignored for the others);
 * - `productionRegion`: production's region, where the edge stack hands its values over
 *   (ignored for staging); a deploy of production to another region fails synth.
 * - `originSecretVersion`: the VersionId of the edge's origin secret that CloudFront sends
 *   and production's WAF matches, after a rotation (ignored for staging).
 * - `signInEmailFrom`, `signInEmailDomain`: production's {@link EnvironmentConfig.signInEmail}
 *   (ignored for staging).
 * - `stagingReservedConcurrency`, `productionReservedConcurrency`: each environment's
 *   {@link EnvironmentConfig.reservedConcurrency}; unset, nothing is reserved.
 * - `selfService`, `selfServiceProjectCap`: {@link EnvironmentConfig.selfService}; unset, on at 2,000.
 * Nothing is looked up: synth stays offline.
 */
export function environmentsFromContext(
  context: ContextReader,
  source: ConfigSource = process.env,
): EnvironmentConfig[] {
  const configs = environmentConfigs(source);
  const names = selectedNames(context('environments'));
  const petsUpgradeStep = petsUpgradeStepFromContext(context('petsUpgradeStep'));
  const platformAddress = platformAddressFromContext(
    context('platformDomain'),
    context('platformHostedZoneId'),
  );
  const productionRegion = productionRegionFromContext(context('productionRegion'));
  const originSecretVersion = originSecretVersionFromContext(context('originSecretVersion'));
  const signInEmail = signInEmailFromContext(context('signInEmailFrom'), context('signInEmailDomain'));
  const selfService = selfServiceFromContext(
    context(SELF_SERVICE_CONTEXT.enabled),
    context(SELF_SERVICE_CONTEXT.cap),
  );
  if (petsUpgradeStep !== undefined && names.length !== 1) {
    throw new Error(
      `Context value "petsUpgradeStep" applies to one environment's table: select it too, e.g. -c environments=production -c petsUpgradeStep=${petsUpgradeStep}.`,
    );
  }
  return names.map((name) => {
    const reservedConcurrency = reservedConcurrencyFromContext(name, context(reservedConcurrencyKey(name)));
    const config: EnvironmentConfig = {
      ...configs[name],
      ...(petsUpgradeStep === undefined ? {} : { petsUpgradeStep }),
      ...(platformAddress && PLATFORM_ENVIRONMENTS.includes(name) ? { platformAddress } : {}),
      ...(productionRegion && name === 'production' ? { region: productionRegion } : {}),
      ...(originSecretVersion && name === 'production' ? { originSecretVersion } : {}),
      ...(signInEmail && name === 'production' ? { signInEmail } : {}),
      ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
      selfService,
    };
    validateEnvironmentConfig(config);
    return config;
  });
}
