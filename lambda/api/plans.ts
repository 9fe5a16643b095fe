/**
 * The plan table, stated once: the API Gateway usage plans, the service's rate
 * limiter, the keys tool and the README all read it.
 */

/** Requests allowed per fixed UTC minute and per fixed UTC day. */
export interface PlanLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** The plans anyone can subscribe to (the spec's table). */
export const STANDARD_PLANS = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
} as const satisfies Record<string, PlanLimits>;

export type StandardPlanName = keyof typeof STANDARD_PLANS;

/** An Enterprise quota agreed with one customer; each becomes its own plan `enterprise:<name>`. */
export interface EnterpriseAgreement extends PlanLimits {
  /** Lower-case letters, digits and hyphens; the plan is called `enterprise:<name>`. */
  readonly name: string;
}

/**
 * The Enterprise agreements in force. Add one here (name, per-minute, per-day) and
 * deploy: the stack creates its usage plan and the limiter enforces it.
 */
export const ENTERPRISE_AGREEMENTS: readonly EnterpriseAgreement[] = [
  { name: 'example-corp', perMinute: 5_000, perDay: 5_000_000 },
];

/**
 * Requests without a valid key are limited per client IP address. This is the
 * allowance of one address; it also slows down anyone guessing keys.
 */
export const ANONYMOUS_LIMITS: PlanLimits = { perMinute: 20, perDay: 200 };

export type PlanName = StandardPlanName | `enterprise:${string}`;

const AGREEMENT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Every plan by name, enterprise agreements included. */
export function allPlans(
  agreements: readonly EnterpriseAgreement[] = ENTERPRISE_AGREEMENTS,
): Map<PlanName, PlanLimits> {
  const plans = new Map<PlanName, PlanLimits>(Object.entries(STANDARD_PLANS) as [PlanName, PlanLimits][]);
  for (const agreement of agreements) plans.set(`enterprise:${agreement.name}`, agreement);
  return plans;
}

const PLANS = allPlans();

/** The limits of a plan; undefined for a plan that no longer exists (e.g. an ended agreement). */
export function limitsOf(plan: string): PlanLimits | undefined {
  return PLANS.get(plan as PlanName);
}

export function isPlanName(value: string): value is PlanName {
  return PLANS.has(value as PlanName);
}

/** Checks the agreements; one message per problem, each naming the value and the fix. */
export function agreementProblems(agreements: readonly EnterpriseAgreement[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { name, perMinute, perDay } of agreements) {
    const where = `Enterprise agreement ${JSON.stringify(name)} (lambda/api/plans.ts)`;
    if (!AGREEMENT_NAME.test(name))
      problems.push(`${where}: use lower-case letters, digits and hyphens for the name.`);
    if (seen.has(name)) problems.push(`${where}: the name is used twice; give each agreement its own name.`);
    seen.add(name);
    if (!Number.isInteger(perMinute) || perMinute < 1)
      problems.push(`${where}: perMinute must be a whole number ≥ 1.`);
    if (!Number.isInteger(perDay) || perDay < perMinute) {
      problems.push(`${where}: perDay must be a whole number ≥ perMinute (${perMinute}).`);
    }
  }
  return problems;
}

/** The usage plan of the anonymous identity (requests without a valid key). */
export const ANONYMOUS_PLAN = 'anonymous';

/**
 * Name of the API Gateway usage plan of a plan in a stack, e.g.
 * `AnimalStore-production-enterprise-example-corp`. The stack creates the plans under
 * these names and the keys tool finds them by them.
 */
export function usagePlanName(stackName: string, plan: PlanName | typeof ANONYMOUS_PLAN): string {
  return `${stackName}-${plan.replace(':', '-')}`;
}
