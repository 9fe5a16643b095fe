import { RemovalPolicy } from 'aws-cdk-lib';
import { PETS_UPGRADE_STEPS } from '../../../lambda/store/table-schema';
import {
  type EnvironmentConfig,
  environmentConfigs,
  environmentsFromContext,
  PETS_UPGRADE_STEP_NUMBERS,
  selectEnvironments,
  validateEnvironmentConfig,
} from '../../../lib/config/environments';
import { platformAddressFromContext } from '../../../lib/config/platform';

const NO_ACCOUNT = {};

function withChanges(changes: Partial<EnvironmentConfig>): EnvironmentConfig {
  return { ...environmentConfigs(NO_ACCOUNT).staging, ...changes };
}

describe('environment configuration', () => {
  test('both environments are selected when no context value is given', () => {
    const selected = selectEnvironments(undefined, NO_ACCOUNT);
    expect(selected.map((config) => [config.name, config.stackName, config.stageName])).toEqual([
      ['staging', 'AnimalStore-staging', 'staging'],
      ['production', 'AnimalStore-production', 'production'],
    ]);
  });

  test('-c environments=staging selects staging only', () => {
    expect(selectEnvironments('staging', NO_ACCOUNT).map((config) => config.name)).toEqual(['staging']);
  });

  test('a comma-separated selection keeps its order and drops duplicates', () => {
    const names = selectEnvironments('production, staging,production', NO_ACCOUNT).map(
      (config) => config.name,
    );
    expect(names).toEqual(['production', 'staging']);
  });

  test('an unknown environment name fails, naming it and the valid names', () => {
    expect(() => selectEnvironments('prod', NO_ACCOUNT)).toThrow(
      /Unknown environment "prod".*use one or more of staging, production/,
    );
  });

  test('production keeps its data, staging can be destroyed', () => {
    const { staging, production } = environmentConfigs(NO_ACCOUNT);
    expect([production.removalPolicy, production.deletionProtection]).toEqual([RemovalPolicy.RETAIN, true]);
    expect([staging.removalPolicy, staging.deletionProtection]).toEqual([RemovalPolicy.DESTROY, false]);
  });

  test('both environments cache API keys for 30 seconds', () => {
    const { staging, production } = environmentConfigs(NO_ACCOUNT);
    expect([staging.apiKeyCacheSeconds, production.apiKeyCacheSeconds]).toEqual([30, 30]);
  });

  test('account and region come from CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION', () => {
    const { production } = environmentConfigs({
      CDK_DEFAULT_ACCOUNT: '123456789012',
      CDK_DEFAULT_REGION: 'eu-west-1',
    });
    expect(production.env).toEqual({ account: '123456789012', region: 'eu-west-1' });
  });

  test('without CDK_DEFAULT_* the stacks are environment-agnostic', () => {
    expect(environmentConfigs(NO_ACCOUNT).staging.env).toBeUndefined();
  });

  test('an API key cache over 60 seconds fails, naming the value and the allowed range', () => {
    expect(() => validateEnvironmentConfig(withChanges({ apiKeyCacheSeconds: 61 }))).toThrow(
      /apiKeyCacheSeconds is 61: use a whole number from 0 to 60/,
    );
  });

  test('a fractional or negative cache duration fails', () => {
    expect(() => validateEnvironmentConfig(withChanges({ apiKeyCacheSeconds: 1.5 }))).toThrow(
      /apiKeyCacheSeconds/,
    );
    expect(() => validateEnvironmentConfig(withChanges({ apiKeyCacheSeconds: -1 }))).toThrow(
      /apiKeyCacheSeconds/,
    );
  });

  test('a memory size Lambda does not offer fails', () => {
    expect(() => validateEnvironmentConfig(withChanges({ lambdaMemoryMb: 64 }))).toThrow(
      /lambdaMemoryMb is 64: use a whole number of MB from 128 to 10240/,
    );
  });

  test('a stage name other than the environment name fails with the fix', () => {
    expect(() => validateEnvironmentConfig(withChanges({ stageName: 'dev' }))).toThrow(
      /stageName is "dev": set it to "staging"/,
    );
  });

  test('a production that could delete its tables fails', () => {
    const production = environmentConfigs(NO_ACCOUNT).production;
    expect(() => validateEnvironmentConfig({ ...production, removalPolicy: RemovalPolicy.DESTROY })).toThrow(
      /production must keep its data/,
    );
    expect(() => validateEnvironmentConfig({ ...production, deletionProtection: false })).toThrow(
      /production must keep its data/,
    );
  });

  test('every problem is reported at once', () => {
    expect(() =>
      validateEnvironmentConfig(withChanges({ apiKeyCacheSeconds: 120, lambdaMemoryMb: 0 })),
    ).toThrow(/apiKeyCacheSeconds is 120[\s\S]*lambdaMemoryMb is 0/);
  });

  test('the shipped configurations are valid', () => {
    for (const config of Object.values(environmentConfigs(NO_ACCOUNT))) {
      expect(() => validateEnvironmentConfig(config)).not.toThrow();
    }
  });
  test('no environment notifies anyone by default', () => {
    for (const config of Object.values(environmentConfigs(NO_ACCOUNT))) {
      expect([config.alarmEmail, config.alarmTopicArn]).toEqual([undefined, undefined]);
    }
  });

  test('an alarm email or an alarm topic ARN is accepted', () => {
    expect(() => validateEnvironmentConfig(withChanges({ alarmEmail: 'oncall@example.com' }))).not.toThrow();
    expect(() =>
      validateEnvironmentConfig(
        withChanges({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:animal-store-alarms' }),
      ),
    ).not.toThrow();
  });

  test('both an alarm email and an alarm topic fail, naming the fix', () => {
    expect(() =>
      validateEnvironmentConfig(
        withChanges({
          alarmEmail: 'oncall@example.com',
          alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:animal-store-alarms',
        }),
      ),
    ).toThrow(/alarmEmail and alarmTopicArn are both set: keep one/);
  });

  test.each([
    [{ alarmEmail: 'oncall' }, /alarmEmail is "oncall": use one email address/],
    [{ alarmEmail: 'a@example.com, b@example.com' }, /alarmEmail is "a@example.com, b@example.com"/],
    [
      { alarmTopicArn: 'animal-store-alarms' },
      /alarmTopicArn is "animal-store-alarms": use the ARN of a standard/,
    ],
    [
      { alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms.fifo' },
      /alarmTopicArn is ".*alarms.fifo": use the ARN of a standard \(not FIFO\) SNS topic/,
    ],
  ] as [Partial<EnvironmentConfig>, RegExp][])('%j fails with a message naming it', (changes, message) => {
    expect(() => validateEnvironmentConfig(withChanges(changes))).toThrow(message);
  });

  test('the shipped configurations have finished the pets upgrade and publish no platform address', () => {
    for (const config of Object.values(environmentConfigs(NO_ACCOUNT))) {
      expect([config.petsUpgradeStep, config.platformAddress]).toEqual([undefined, undefined]);
    }
  });

  test('an upgrade step outside the table schema fails, naming the valid steps', () => {
    expect(PETS_UPGRADE_STEP_NUMBERS).toEqual(Object.keys(PETS_UPGRADE_STEPS).map(Number));
    expect(() => validateEnvironmentConfig(withChanges({ petsUpgradeStep: 4 as never }))).toThrow(
      /petsUpgradeStep is 4: use one of 1, 2, 3, or leave it out once the upgrade is done/,
    );
  });

  test('a platform address outside production fails; a malformed one fails with each problem', () => {
    const address = { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' };
    expect(() => validateEnvironmentConfig(withChanges({ platformAddress: address }))).toThrow(
      /platformAddress is set: only production publishes project addresses/,
    );
    const production = environmentConfigs(NO_ACCOUNT).production;
    expect(() => validateEnvironmentConfig({ ...production, platformAddress: address })).not.toThrow();
    expect(() =>
      validateEnvironmentConfig({
        ...production,
        platformAddress: { domain: 'Animalstore.example.', hostedZoneId: 'nope' },
      }),
    ).toThrow(/platform domain "Animalstore.example.": use a lower-case domain[\s\S]*hosted zone id "nope"/);
  });
});

describe('configuration from context values', () => {
  const context =
    (values: Record<string, unknown>) =>
    (key: string): unknown =>
      values[key];

  test('no context values: both environments as shipped', () => {
    expect(environmentsFromContext(context({}), NO_ACCOUNT)).toEqual(
      selectEnvironments(undefined, NO_ACCOUNT),
    );
  });

  test('-c petsUpgradeStep=2 with one environment deploys its table at step 2', () => {
    const [production, ...others] = environmentsFromContext(
      context({ environments: 'production', petsUpgradeStep: '2' }),
      NO_ACCOUNT,
    );
    expect(others).toEqual([]);
    expect([production?.name, production?.petsUpgradeStep]).toEqual(['production', 2]);
    // cdk.json may give it as a number.
    expect(
      environmentsFromContext(context({ environments: 'staging', petsUpgradeStep: 1 }), NO_ACCOUNT)[0]
        ?.petsUpgradeStep,
    ).toBe(1);
  });

  test('an upgrade step without exactly one environment fails: a step belongs to one table', () => {
    expect(() => environmentsFromContext(context({ petsUpgradeStep: '1' }), NO_ACCOUNT)).toThrow(
      /applies to one environment's table: select it too, e.g. -c environments=production -c petsUpgradeStep=1/,
    );
  });

  test.each(['0', '4', 'two', '1.5', true])('petsUpgradeStep=%j fails, naming the valid steps', (value) => {
    expect(() =>
      environmentsFromContext(context({ environments: 'production', petsUpgradeStep: value }), NO_ACCOUNT),
    ).toThrow(/Context value "petsUpgradeStep" is .*: use one of 1, 2, 3/);
  });

  test('the platform address goes to production only', () => {
    const configs = environmentsFromContext(
      context({ platformDomain: 'animalstore.example', platformHostedZoneId: 'Z0123456789PLATFORM' }),
      NO_ACCOUNT,
    );
    expect(configs.map((config) => [config.name, config.platformAddress])).toEqual([
      ['staging', undefined],
      ['production', { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' }],
    ]);
  });

  test('half a platform address fails, asking for both', () => {
    expect(() => platformAddressFromContext('animalstore.example', undefined)).toThrow(
      /"platformHostedZoneId" is undefined: pass both/,
    );
    expect(() => platformAddressFromContext(undefined, 'Z0123')).toThrow(
      /"platformDomain" is undefined: pass both/,
    );
  });

  test('a malformed platform address from the context fails synth', () => {
    expect(() =>
      environmentsFromContext(
        context({ environments: 'production', platformDomain: 'localhost', platformHostedZoneId: 'Z1' }),
        NO_ACCOUNT,
      ),
    ).toThrow(/platform domain "localhost": use a lower-case domain name/);
  });
});

describe('the origin secret version in a configuration', () => {
  const served: Partial<EnvironmentConfig> = {
    ...environmentConfigs(NO_ACCOUNT).production,
    platformAddress: { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' },
    region: 'eu-west-1',
  };

  test('a VersionId is valid where the edge serves the environment', () => {
    expect(() =>
      validateEnvironmentConfig(
        withChanges({ ...served, originSecretVersion: 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111' }),
      ),
    ).not.toThrow();
  });

  test('a malformed one, or one where no edge serves, fails with each fix', () => {
    expect(() => validateEnvironmentConfig(withChanges({ ...served, originSecretVersion: 'v2' }))).toThrow(
      /originSecretVersion is "v2": use the VersionId that aws secretsmanager put-secret-value printed/,
    );
    expect(() =>
      validateEnvironmentConfig(withChanges({ originSecretVersion: 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111' })),
    ).toThrow(/originSecretVersion is set but no edge serves this environment/);
  });
});

describe('reserved concurrency in a configuration', () => {
  const fromContext = (values: Record<string, unknown>) =>
    environmentsFromContext((key) => values[key], NO_ACCOUNT);

  test('is off by default in every environment, so the smallest Lambda quota (10) can take a deploy', () => {
    expect(fromContext({}).map((config) => config.reservedConcurrency)).toEqual([undefined, undefined]);
  });

  test('is given per environment: -c <environment>ReservedConcurrency=N', () => {
    const configs = fromContext({ productionReservedConcurrency: '10' });
    expect(configs.map((config) => [config.name, config.reservedConcurrency])).toEqual([
      ['staging', undefined],
      ['production', 10],
    ]);
    expect(fromContext({ stagingReservedConcurrency: 5 })[0]?.reservedConcurrency).toBe(5);
  });

  test.each(['0', '-1', '2.5', 'ten', true])(
    '%p is refused on one line, naming the key and the fix',
    (value) => {
      expect(() => fromContext({ stagingReservedConcurrency: value })).toThrow(
        new RegExp(
          `^Context value "stagingReservedConcurrency" is ${JSON.stringify(value).replace(/[.]/g, '\\.')}: give a whole number of at least 1, e\\.g\\. -c stagingReservedConcurrency=10, or leave it out[^\\n]*$`,
        ),
      );
    },
  );

  test('a configuration with a bad value fails validation', () => {
    expect(() => validateEnvironmentConfig(withChanges({ reservedConcurrency: 0 }))).toThrow(
      /^Invalid configuration of environment "staging" \(lib\/config\/environments\.ts\): reservedConcurrency is 0: use a whole number of at least 1/,
    );
  });
});
