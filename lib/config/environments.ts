import { type Environment, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { MAX_API_KEY_CACHE_SECONDS } from '../../lambda/api/limits';
import { agreementProblems, ENTERPRISE_AGREEMENTS, type EnterpriseAgreement } from '../../lambda/api/plans';

/** The deployable environments, in deployment order. */
export const ENVIRONMENT_NAMES = ['staging', 'production'] as const;

/** Name of a deployable environment. */
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

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
   * Account and region to deploy to.
   * @default environment-agnostic, when CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION are unset
   */
  readonly env?: Environment;
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
 * Checks a configuration, and the Enterprise agreements every environment deploys, and
 * throws one error listing every bad value with its fix, so a mistake stops `cdk synth`
 * instead of reaching CloudFormation or production.
 */
export function validateEnvironmentConfig(
  config: EnvironmentConfig,
  agreements: readonly EnterpriseAgreement[] = ENTERPRISE_AGREEMENTS,
): void {
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
  problems.push(...agreementProblems(agreements));
  if (problems.length > 0) {
    throw new Error(`Invalid configuration of ${where}:\n- ${problems.join('\n- ')}`);
  }
}

function isEnvironmentName(value: string): value is EnvironmentName {
  return (ENVIRONMENT_NAMES as readonly string[]).includes(value);
}

/**
 * The validated configurations selected by the `environments` context value
 * (`cdk synth -c environments=staging`, comma-separated); all of them when it is unset.
 */
export function selectEnvironments(
  selection: unknown,
  source: ConfigSource = process.env,
): EnvironmentConfig[] {
  const configs = environmentConfigs(source);
  if (selection === undefined || selection === '') {
    const all = ENVIRONMENT_NAMES.map((name) => configs[name]);
    for (const config of all) validateEnvironmentConfig(config);
    return all;
  }
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
    validateEnvironmentConfig(configs[name]);
    return configs[name];
  });
}
