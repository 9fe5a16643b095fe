import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  ANONYMOUS_LIMITS,
  PLAN_NAMES,
  PLANS,
  type PlanLimits,
  planCapacity,
  PREFLIGHT_LIMITS,
} from '../../../lambda/core/plans';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { ENVIRONMENT_NAMES, environmentConfigs } from '../../../lib/config/environments';
import {
  ANONYMOUS_PLAN,
  type KeylessPlan,
  PREFLIGHT_PLAN,
  usagePlanName,
} from '../../../lib/config/usage-plan-names';
import { floodLimitPerIp } from '../../../lib/constructs/edge-firewall';
import { gatewayLimits, UsagePlans, type UsagePlansProps } from '../../../lib/constructs/usage-plans';
import { synthEnvironment, testApp } from '../../support/synth';
import { authorizerFunctionId, type CfnResource, environmentOf, resourcesOfType } from '../template-queries';

/** API Gateway's default account-level throttle, stated here independently of lib/. */
const ACCOUNT_BURST = 5_000;
const ACCOUNT_RATE = 10_000;

/** The gateway backstop: twice the service's limits, whole requests per second, capped by the account. */
function expectedLimits({ perMinute, perDay }: PlanLimits) {
  return {
    Throttle: {
      BurstLimit: Math.min(2 * perMinute, ACCOUNT_BURST),
      RateLimit: Math.min(Math.ceil((2 * perMinute) / 60), ACCOUNT_RATE),
    },
    Quota: { Limit: 2 * perDay, Period: 'DAY' },
  };
}

/** Usage plans of a template by their UsagePlanName. */
function plansByName(template: Template): Map<string, { id: string; plan: CfnResource }> {
  return new Map(
    Object.entries(resourcesOfType(template, 'AWS::ApiGateway::UsagePlan')).map(([id, plan]) => [
      String(plan.Properties.UsagePlanName),
      { id, plan },
    ]),
  );
}

/** The stack's API key of a keyless plan, found by its name. */
function keylessKey(
  template: Template,
  plan: KeylessPlan = ANONYMOUS_PLAN,
): { id: string; key: CfnResource } {
  const keys = Object.entries(resourcesOfType(template, 'AWS::ApiGateway::ApiKey')).filter(([, key]) =>
    String(key.Properties.Name).endsWith(`-${plan}`),
  );
  if (keys.length !== 1) throw new Error(`Expected one ${plan} API key, found ${keys.length}`);
  const [id, key] = keys[0] as [string, CfnResource];
  return { id, key };
}

const anonymousKey = (template: Template) => keylessKey(template, ANONYMOUS_PLAN);

/** UsagePlans on a bare REST API stage, for what the shipped configuration cannot show. */
function plansStack(props: Partial<UsagePlansProps> = {}): Template {
  const stack = new Stack(testApp(), 'AnimalStore-test');
  const api = new RestApi(stack, 'Api');
  api.root.addMethod('GET', new MockIntegration());
  new UsagePlans(stack, 'UsagePlans', { stage: api.deploymentStage, ...props });
  return Template.fromStack(stack);
}

/** Each plan with what its usage plan is sized from: the table's limits, an agreed plan's ceiling. */
const customerPlans = PLAN_NAMES.map((plan) => [plan, planCapacity(plan)] as const);

describe.each(ENVIRONMENT_NAMES)('usage plans of %s', (name) => {
  const template = synthEnvironment(name);
  const { stackName } = environmentConfigs({})[name];
  const plans = plansByName(template);

  test('there is one usage plan per plan of the plan table, plus the anonymous and the preflight ones', () => {
    const expected = PLAN_NAMES.map((plan) => usagePlanName(stackName, plan));
    expected.push(usagePlanName(stackName, ANONYMOUS_PLAN), usagePlanName(stackName, PREFLIGHT_PLAN));
    expect([...plans.keys()].sort()).toEqual(expected.sort());
  });

  test.each(customerPlans)('%s: throttle and DAY quota at twice the service limits', (plan, limits) => {
    expect(plans.get(usagePlanName(stackName, plan))?.plan.Properties).toMatchObject(expectedLimits(limits));
  });

  test('enterprise is sized from its ceiling, so every agreement within it fits, and the ceiling fits the account', () => {
    const { ceiling } = PLANS.enterprise;
    expect(ceiling.perMinute).toBeLessThanOrEqual(ACCOUNT_BURST);
    expect(plans.get(usagePlanName(stackName, 'enterprise'))?.plan.Properties).toMatchObject(
      expectedLimits(ceiling),
    );
  });

  test('usage plans are named <stack>-<plan>: no per-agreement plans', () => {
    expect([...plans.keys()].sort()).toEqual(
      ['anonymous', 'business', 'enterprise', 'free', 'preflight', 'pro'].map(
        (plan) => `${stackName}-${plan}`,
      ),
    );
  });

  test('every plan applies to the API stage', () => {
    const [restApiId] = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::RestApi'));
    const [stageId] = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::Stage'));
    for (const { plan } of plans.values()) {
      expect(plan.Properties.ApiStages).toEqual([
        expect.objectContaining({ ApiId: { Ref: restApiId }, Stage: { Ref: stageId } }),
      ]);
    }
  });

  test('the anonymous plan allows 100 at once, 50 per second and 100,000 per day', () => {
    expect(plans.get(usagePlanName(stackName, ANONYMOUS_PLAN))?.plan.Properties).toMatchObject({
      Throttle: { BurstLimit: 100, RateLimit: 50 },
      Quota: { Limit: 100_000, Period: 'DAY' },
    });
  });

  test('the anonymous plan lets one address use twice its allowance at once', () => {
    const { Throttle, Quota } = plans.get(usagePlanName(stackName, ANONYMOUS_PLAN))?.plan.Properties as {
      Throttle: { BurstLimit: number };
      Quota: { Limit: number };
    };
    expect(Throttle.BurstLimit).toBeGreaterThanOrEqual(2 * ANONYMOUS_LIMITS.perMinute);
    expect(Quota.Limit).toBeGreaterThanOrEqual(2 * ANONYMOUS_LIMITS.perDay);
  });

  test('the preflight plan carries one address sending its whole minute of preflights at once, and no address can use up its day', () => {
    const { Throttle, Quota } = plans.get(usagePlanName(stackName, PREFLIGHT_PLAN))?.plan.Properties as {
      Throttle: { BurstLimit: number; RateLimit: number };
      Quota: { Limit: number };
    };
    expect(Throttle.BurstLimit).toBeGreaterThanOrEqual(2 * PREFLIGHT_LIMITS.perMinute);
    // The firewall lets one address send floodLimitPerIp() a minute: a whole day of it fits.
    expect(Quota.Limit).toBeGreaterThan(floodLimitPerIp() * 1_440);
    expect(Throttle.RateLimit).toBeGreaterThan(floodLimitPerIp() / 60);
  });

  test('the only API keys are the anonymous and the preflight ones, enabled, at least 20 characters', () => {
    expect(Object.keys(resourcesOfType(template, 'AWS::ApiGateway::ApiKey'))).toHaveLength(2);
    for (const plan of [ANONYMOUS_PLAN, PREFLIGHT_PLAN] as const) {
      const { key } = keylessKey(template, plan);
      expect(key.Properties).toMatchObject({ Name: usagePlanName(stackName, plan), Enabled: true });
      expect(key.Properties.Value).toMatch(/^[A-Za-z0-9]{20,128}$/);
    }
  });

  test('each keyless key is in its own plan and no customer plan has a key', () => {
    const keyLinks = Object.values(resourcesOfType(template, 'AWS::ApiGateway::UsagePlanKey'));
    expect(keyLinks.map((link) => link.Properties)).toEqual(
      ([ANONYMOUS_PLAN, PREFLIGHT_PLAN] as const).map((plan) => ({
        KeyId: { Ref: keylessKey(template, plan).id },
        KeyType: 'API_KEY',
        UsagePlanId: { Ref: plans.get(usagePlanName(stackName, plan))?.id },
      })),
    );
  });

  test("the authorizer's ANONYMOUS_USAGE_ID and PREFLIGHT_USAGE_ID are the keyless keys' values", () => {
    const environment = environmentOf(template, authorizerFunctionId(template));
    expect(environment[RUNTIME_ENV.anonymousUsageId]).toBe(anonymousKey(template).key.Properties.Value);
    expect(environment[RUNTIME_ENV.preflightUsageId]).toBe(
      keylessKey(template, PREFLIGHT_PLAN).key.Properties.Value,
    );
  });
});

describe('the anonymous usage identifier', () => {
  const valueOf = (template: Template) => anonymousKey(template).key.Properties.Value;

  test('differs between staging and production (key values are unique per account and region)', () => {
    expect(valueOf(synthEnvironment('staging'))).not.toBe(valueOf(synthEnvironment('production')));
  });

  test('is the same on every synth, so deployments keep the key', () => {
    expect(valueOf(plansStack())).toBe(valueOf(plansStack()));
  });
});

describe('gatewayLimits', () => {
  test('the worked example: 60 a minute and 1,000 a day give burst 120, rate 2 per second, 2,000 per day', () => {
    expect(gatewayLimits({ perMinute: 60, perDay: 1_000 })).toEqual({
      burstLimit: 120,
      rateLimit: 2,
      quotaPerDay: 2_000,
    });
  });

  test('rounds the rate up and clamps both to the account throttle', () => {
    expect(gatewayLimits({ perMinute: 61, perDay: 61 })).toMatchObject({ burstLimit: 122, rateLimit: 3 });
    expect(gatewayLimits({ perMinute: 5_000, perDay: 1 }, { burstLimit: 4_000, rateLimit: 100 })).toEqual({
      burstLimit: 4_000,
      rateLimit: 100,
      quotaPerDay: 2,
    });
  });
});

describe('the account throttle', () => {
  const { ceiling } = PLANS.enterprise;
  const plan = (template: Template, name: string) =>
    plansByName(template).get(`AnimalStore-test-${name}`)?.plan.Properties;

  test("a doubled burst above the account's burst limit is clamped to it", () => {
    // enterprise: twice its ceiling's per-minute is above the default account burst.
    expect(2 * ceiling.perMinute).toBeGreaterThan(ACCOUNT_BURST);
    expect(plan(plansStack(), 'enterprise')).toMatchObject({ Throttle: { BurstLimit: ACCOUNT_BURST } });
  });

  test('a raised account throttle raises the cap', () => {
    const template = plansStack({ accountThrottle: { burstLimit: 20_000, rateLimit: 20_000 } });
    expect(plan(template, 'enterprise')).toMatchObject({
      Throttle: { BurstLimit: 2 * ceiling.perMinute, RateLimit: Math.ceil((2 * ceiling.perMinute) / 60) },
    });
  });

  test("a plan whose minute's allowance is above the account burst limit fails synth, naming the plan and the fix", () => {
    const burstLimit = ceiling.perMinute - 1;
    expect(() => plansStack({ accountThrottle: { burstLimit, rateLimit: 10_000 } })).toThrow(
      new RegExp(
        `Plan "enterprise" allows ${ceiling.perMinute} requests per minute, more than the account burst limit of ${burstLimit}.*raise the account-level API Gateway throttle.*raise accountThrottle`,
      ),
    );
  });

  test('a sustained rate above the account rate limit fails synth', () => {
    expect(() =>
      plansStack({ accountThrottle: { burstLimit: 2 * ceiling.perMinute, rateLimit: 50 } }),
    ).toThrow(
      new RegExp(
        `Plan "enterprise" allows ${ceiling.perMinute} requests per minute, more than the account rate limit of 50`,
      ),
    );
  });
});
