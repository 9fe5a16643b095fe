import { createHash } from 'node:crypto';
import { Stack } from 'aws-cdk-lib';
import { ApiKey, Period, type Stage, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import {
  isAgreedPlan,
  PLAN_NAMES,
  type PlanLimits,
  type PlanName,
  planCapacity,
  planDefinition,
} from '../../lambda/core/plans';
import { ANONYMOUS_PLAN, type KeylessPlan, PREFLIGHT_PLAN, usagePlanName } from '../config/usage-plan-names';
import { floodLimitPerIp } from './edge-firewall';

/** An API Gateway token bucket: `burstLimit` is its size, `rateLimit` its refill in requests per second. */
export interface GatewayThrottle {
  readonly burstLimit: number;
  readonly rateLimit: number;
}

/** What one usage plan lets through: its token bucket and its requests per day. */
export interface GatewayLimits extends GatewayThrottle {
  readonly quotaPerDay: number;
}

/**
 * API Gateway's default account-level throttle per region (burst 5,000, 10,000 requests
 * per second), shared by every API of the account. A usage plan above it is never reached:
 * the account throttle answers first.
 */
export const DEFAULT_ACCOUNT_THROTTLE: GatewayThrottle = { burstLimit: 5_000, rateLimit: 10_000 };

/**
 * What each plan's usage plan is sized from, by plan, in the plan table's order: a standard
 * plan's limits, an agreed plan's ceiling (the most any of its projects may be granted).
 */
export function usagePlanCapacities(): ReadonlyMap<PlanName, PlanLimits> {
  return new Map(PLAN_NAMES.map((plan) => [plan, planCapacity(plan)]));
}

/**
 * The gateway's allowance for a plan: twice the service's limits, so that the service,
 * which enforces the exact limits per project per UTC minute and day, always answers first
 * (429 with Retry-After and the rate-limit headers) and the gateway is only a backstop.
 *
 * - `burstLimit = 2 × perMinute`: a client may send its whole minute's allowance at once,
 *   and its refused retries must still reach the service to get the service's 429.
 * - `rateLimit = 2 × perMinute / 60` requests per second, rounded up to a whole request,
 *   the same headroom as a sustained rate.
 * - `quotaPerDay = 2 × perDay`: the gateway counts refused requests too.
 *
 * E.g. free (60/min, 1,000/day): burst 120, rate 2 r/s, quota 2,000 per day.
 *
 * Both throttle values are clamped to the account throttle: API Gateway could never serve
 * more anyway. Only the headroom is given up that way; a plan whose own allowance does not
 * fit under it (perMinute above the burst, perMinute / 60 above the rate) is refused by
 * {@link throttleProblems}, because then the gateway would answer first in normal use.
 */
export function gatewayLimits(
  limits: PlanLimits,
  accountThrottle: GatewayThrottle = DEFAULT_ACCOUNT_THROTTLE,
): GatewayLimits {
  return {
    burstLimit: Math.min(2 * limits.perMinute, accountThrottle.burstLimit),
    rateLimit: Math.min(Math.ceil((2 * limits.perMinute) / 60), accountThrottle.rateLimit),
    quotaPerDay: 2 * limits.perDay,
  };
}

/** One message per plan whose own allowance exceeds the account throttle, naming the fix. */
export function throttleProblems(
  plans: ReadonlyMap<PlanName, PlanLimits>,
  accountThrottle: GatewayThrottle = DEFAULT_ACCOUNT_THROTTLE,
): string[] {
  const problems: string[] = [];
  const fix =
    'raise the account-level API Gateway throttle of the region with AWS Support, then raise ' +
    'accountThrottle (DEFAULT_ACCOUNT_THROTTLE in lib/constructs/usage-plans.ts) to match, or lower the plan ' +
    'in lambda/core/plans.ts';
  for (const [plan, { perMinute }] of plans) {
    if (perMinute > accountThrottle.burstLimit) {
      problems.push(
        `Plan "${plan}" allows ${perMinute} requests per minute, more than the account burst limit of ` +
          `${accountThrottle.burstLimit}, so API Gateway would refuse a minute's allowance sent at once: ${fix}.`,
      );
    }
    if (perMinute / 60 > accountThrottle.rateLimit) {
      problems.push(
        `Plan "${plan}" allows ${perMinute} requests per minute, more than the account rate limit of ` +
          `${accountThrottle.rateLimit} requests per second: ${fix}.`,
      );
    }
  }
  return problems;
}

/**
 * The anonymous plan's allowance. It is shared by ALL callers without a valid key together
 * but for preflights from allowed origins (the per-address limit, ANONYMOUS_LIMITS, lives in
 * the service), so it is not derived from a per-caller plan: it bounds how much keyless
 * traffic, which only ever earns a 401 or a refusal, reaches Lambda and DynamoDB at all. 100 at once and 50 per second cover a few dozen
 * misconfigured clients retrying; 100,000 per day is 500 addresses each using its full
 * daily allowance of 200.
 */
export const ANONYMOUS_GATEWAY_LIMITS: GatewayLimits = {
  burstLimit: 100,
  rateLimit: 50,
  quotaPerDay: 100_000,
};

/**
 * The preflight plan's allowance: every browser's preflight from an origin a project allows,
 * of every project, together (each address is limited by the service, PREFLIGHT_LIMITS).
 * A preflight carries no key and anyone can forge its origin, so it is on no project's plan;
 * it has a plan apart from the anonymous one, so that junk sent without a key cannot throttle
 * the tenants' browsers. Its quota is more than one address can send in a day below the
 * firewall's per-address flood rule (twice that), so no single address can use it up; its throttle carries
 * a few hundred busy pages at once.
 */
export const PREFLIGHT_GATEWAY_LIMITS: GatewayLimits = {
  burstLimit: 2_000,
  rateLimit: 1_000,
  quotaPerDay: 2 * floodLimitPerIp() * 1_440,
};

/** Properties of {@link UsagePlans}. */
export interface UsagePlansProps {
  /** The API stage every plan applies to. */
  readonly stage: Stage;
  /**
   * The account-level throttle of the target region, which caps every plan's throttle.
   * @default DEFAULT_ACCOUNT_THROTTLE
   */
  readonly accountThrottle?: GatewayThrottle;
}

/**
 * One usage plan per plan of the plan table as a backstop at twice the service's limits
 * (an agreed plan's at twice its ceiling, so every agreement within it fits), and the
 * anonymous plan with the one API key that stands for every caller without a valid key.
 * Each project's gateway key (its usage identifier) is added to its plan's usage plan at
 * runtime by the projects tool, found by {@link usagePlanName}.
 */
export class UsagePlans extends Construct {
  /** Usage plan by plan name, `anonymous` and `preflight` included. */
  public readonly plans: ReadonlyMap<PlanName | KeylessPlan, UsagePlan>;
  /** The API key of the anonymous plan. */
  public readonly anonymousKey: ApiKey;
  /**
   * Value of the anonymous key: the usage identifier the authorizer returns for callers
   * without a valid key. Not a secret (clients cannot present usage identifiers: the
   * authorizer chooses them), fixed per stack so deployments do not churn the key.
   */
  public readonly anonymousUsageId: string;
  /** Value of the preflight plan's key, which the authorizer returns for a preflight from an allowed origin (not a secret). */
  public readonly preflightUsageId: string;

  constructor(scope: Construct, id: string, props: UsagePlansProps) {
    super(scope, id);
    const accountThrottle = props.accountThrottle ?? DEFAULT_ACCOUNT_THROTTLE;
    const customerPlans = usagePlanCapacities();
    const problems = throttleProblems(customerPlans, accountThrottle);
    if (problems.length > 0) {
      throw new Error(`Invalid usage plans:\n- ${problems.join('\n- ')}`);
    }

    const { stackName } = Stack.of(this);
    const plans = new Map<PlanName | KeylessPlan, UsagePlan>();
    for (const [plan, limits] of customerPlans) {
      const definition = planDefinition(plan);
      plans.set(
        plan,
        this.usagePlan(
          plan,
          gatewayLimits(limits, accountThrottle),
          props.stage,
          `${definition.title}: ${limits.perMinute} per minute and ${limits.perDay} per day ` +
            `${isAgreedPlan(definition) ? 'at most (agreed per project)' : 'per project'}, enforced by the service; twice that here`,
        ),
      );
    }
    const anonymous = this.usagePlan(
      ANONYMOUS_PLAN,
      ANONYMOUS_GATEWAY_LIMITS,
      props.stage,
      'Every caller without a valid API key, together; the service limits each address',
    );
    plans.set(ANONYMOUS_PLAN, anonymous);
    const preflight = this.usagePlan(
      PREFLIGHT_PLAN,
      PREFLIGHT_GATEWAY_LIMITS,
      props.stage,
      "Every preflight from an origin a project allows, together (never the project's plan); the service limits each address",
    );
    plans.set(PREFLIGHT_PLAN, preflight);
    this.plans = plans;

    this.anonymousUsageId = keylessUsageId(stackName, ANONYMOUS_PLAN);
    this.anonymousKey = new ApiKey(this, 'AnonymousKey', {
      apiKeyName: usagePlanName(stackName, ANONYMOUS_PLAN),
      description: 'Usage identifier of every caller without a valid API key (not a secret)',
      value: this.anonymousUsageId,
      enabled: true,
    });
    anonymous.addApiKey(this.anonymousKey);
    this.preflightUsageId = keylessUsageId(stackName, PREFLIGHT_PLAN);
    const preflightKey = new ApiKey(this, 'PreflightKey', {
      apiKeyName: usagePlanName(stackName, PREFLIGHT_PLAN),
      description: 'Usage identifier of every preflight from an allowed origin (not a secret)',
      value: this.preflightUsageId,
      enabled: true,
    });
    preflight.addApiKey(preflightKey);
  }

  private usagePlan(
    plan: PlanName | KeylessPlan,
    limits: GatewayLimits,
    stage: Stage,
    description: string,
  ): UsagePlan {
    return new UsagePlan(this, plan, {
      name: usagePlanName(Stack.of(this).stackName, plan),
      description,
      apiStages: [{ stage }],
      throttle: { burstLimit: limits.burstLimit, rateLimit: limits.rateLimit },
      quota: { limit: limits.quotaPerDay, period: Period.DAY },
    });
  }
}

/**
 * The fixed value of a keyless plan's key. API key values are unique per account and region:
 * the stack name keeps the environments apart, and hex keeps the value to characters API
 * Gateway accepts.
 */
function keylessUsageId(stackName: string, plan: KeylessPlan): string {
  return `${plan}${createHash('sha256').update(`${stackName}/${plan}`).digest('hex').slice(0, 32)}`;
}
