import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  ANONYMOUS_LIMITS,
  ANONYMOUS_PLAN,
  agreementProblems,
  allPlans,
  ENTERPRISE_AGREEMENTS,
  type EnterpriseAgreement,
  type PlanLimits,
  usagePlanName,
} from '../../../lambda/api/plans';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { ENVIRONMENT_NAMES, environmentConfigs } from '../../../lib/config/environments';
import { UsagePlans, type UsagePlansProps } from '../../../lib/constructs/usage-plans';
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

function anonymousKey(template: Template): { id: string; key: CfnResource } {
  const keys = Object.entries(resourcesOfType(template, 'AWS::ApiGateway::ApiKey'));
  if (keys.length !== 1) throw new Error(`Expected one API key, found ${keys.length}`);
  const [id, key] = keys[0] as [string, CfnResource];
  return { id, key };
}

/** UsagePlans on a bare REST API stage, for what the shipped configuration cannot show. */
function plansStack(props: Partial<UsagePlansProps> = {}): Template {
  const stack = new Stack(testApp(), 'AnimalStore-test');
  const api = new RestApi(stack, 'Api');
  api.root.addMethod('GET', new MockIntegration());
  new UsagePlans(stack, 'UsagePlans', { stage: api.deploymentStage, ...props });
  return Template.fromStack(stack);
}

const customerPlans = [...allPlans()];

describe.each(ENVIRONMENT_NAMES)('usage plans of %s', (name) => {
  const template = synthEnvironment(name);
  const { stackName } = environmentConfigs({})[name];
  const plans = plansByName(template);

  test('there is one usage plan per plan of the plan table, plus the anonymous one', () => {
    const expected = [...allPlans().keys()].map((plan) => usagePlanName(stackName, plan));
    expected.push(usagePlanName(stackName, ANONYMOUS_PLAN));
    expect([...plans.keys()].sort()).toEqual(expected.sort());
  });

  test.each(customerPlans)('%s: throttle and DAY quota at twice the service limits', (plan, limits) => {
    expect(plans.get(usagePlanName(stackName, plan))?.plan.Properties).toMatchObject(expectedLimits(limits));
  });

  test('free is the worked example: burst 120, rate 2 per second, 2,000 per day', () => {
    expect(plans.get(usagePlanName(stackName, 'free'))?.plan.Properties).toMatchObject({
      Throttle: { BurstLimit: 120, RateLimit: 2 },
      Quota: { Limit: 2_000, Period: 'DAY' },
    });
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

  test('the only API key is the anonymous one, enabled, at least 20 characters', () => {
    const { key } = anonymousKey(template);
    expect(key.Properties).toMatchObject({ Name: usagePlanName(stackName, ANONYMOUS_PLAN), Enabled: true });
    expect(key.Properties.Value).toMatch(/^[A-Za-z0-9]{20,128}$/);
  });

  test('the anonymous key is in the anonymous plan and no customer plan has a key', () => {
    const keyLinks = Object.values(resourcesOfType(template, 'AWS::ApiGateway::UsagePlanKey'));
    expect(keyLinks.map((link) => link.Properties)).toEqual([
      {
        KeyId: { Ref: anonymousKey(template).id },
        KeyType: 'API_KEY',
        UsagePlanId: { Ref: plans.get(usagePlanName(stackName, ANONYMOUS_PLAN))?.id },
      },
    ]);
  });

  test("the authorizer's ANONYMOUS_USAGE_ID is the anonymous key's value", () => {
    const value = anonymousKey(template).key.Properties.Value;
    expect(environmentOf(template, authorizerFunctionId(template))[RUNTIME_ENV.anonymousUsageId]).toBe(value);
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

describe('plans from the agreements', () => {
  const plan = (template: Template, name: string) =>
    plansByName(template).get(usagePlanName('AnimalStore-test', `enterprise:${name}`))?.plan.Properties;

  test('an added agreement gets its own plan at twice its limits', () => {
    const acme: EnterpriseAgreement = { name: 'acme', perMinute: 100, perDay: 2_000 };
    const template = plansStack({ agreements: [...ENTERPRISE_AGREEMENTS, acme] });
    expect(plan(template, 'acme')).toMatchObject({
      Throttle: { BurstLimit: 200, RateLimit: 4 },
      Quota: { Limit: 4_000, Period: 'DAY' },
    });
  });

  test('without agreements only the standard and anonymous plans exist', () => {
    const names = [...plansByName(plansStack({ agreements: [] })).keys()].sort();
    expect(names).toEqual(
      ['anonymous', 'business', 'free', 'pro'].map((suffix) => `AnimalStore-test-${suffix}`),
    );
  });

  test("a doubled burst above the account's burst limit is clamped to it", () => {
    const template = plansStack({ agreements: [{ name: 'big', perMinute: 4_000, perDay: 100_000 }] });
    expect(plan(template, 'big')).toMatchObject({ Throttle: { BurstLimit: 5_000, RateLimit: 134 } });
  });

  test('a raised account throttle raises the cap', () => {
    const template = plansStack({
      agreements: [{ name: 'huge', perMinute: 6_000, perDay: 1_000_000 }],
      accountThrottle: { burstLimit: 20_000, rateLimit: 20_000 },
    });
    expect(plan(template, 'huge')).toMatchObject({ Throttle: { BurstLimit: 12_000, RateLimit: 200 } });
  });

  test("a minute's allowance above the account burst limit fails synth, naming the plan and the fix", () => {
    expect(() => plansStack({ agreements: [{ name: 'huge', perMinute: 6_000, perDay: 1_000_000 }] })).toThrow(
      /Plan "enterprise:huge" allows 6000 requests per minute, more than the account burst limit of 5000.*raise the account-level API Gateway throttle.*raise accountThrottle/,
    );
  });

  test('a sustained rate above the account rate limit fails synth', () => {
    expect(() =>
      plansStack({
        agreements: [{ name: 'fast', perMinute: 7_200, perDay: 1_000_000 }],
        accountThrottle: { burstLimit: 10_000, rateLimit: 100 },
      }),
    ).toThrow(
      /Plan "enterprise:fast" allows 7200 requests per minute, more than the account rate limit of 100/,
    );
  });

  test('a bad agreement fails synth with every one of its problems', () => {
    const bad: EnterpriseAgreement[] = [{ name: 'Bad Name', perMinute: 0, perDay: 0 }];
    const problems = agreementProblems(bad);
    expect(problems.length).toBeGreaterThanOrEqual(2);
    expect(() => plansStack({ agreements: bad })).toThrow(`Invalid usage plans:\n- ${problems.join('\n- ')}`);
  });
});
