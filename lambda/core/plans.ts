/**
 * The plan table, stated once. The limiter, the API Gateway usage plans, the tools,
 * the published document and the docs all read their plan names and numbers here:
 * a plan added to this table works everywhere without another change.
 */

/** Requests allowed per fixed UTC minute and per fixed UTC day. */
export interface PlanLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** A plan anyone can subscribe to: its numbers are the same for every project on it. */
export interface StandardPlan {
  readonly title: string;
  readonly limits: PlanLimits;
  /** Whether a project on this plan may attach custom domains (the spec: paid plans only). */
  readonly customDomains: boolean;
}

/**
 * A plan whose numbers are agreed with each customer and stored on its project, so a new
 * agreement needs no code change and no deploy. `ceiling` is the most an agreement may
 * grant: the gateway's usage plan for this plan is sized from it, and tools refuse more.
 */
export interface AgreedPlan {
  readonly title: string;
  readonly agreed: true;
  readonly ceiling: PlanLimits;
  readonly customDomains: boolean;
}

export type PlanDefinition = StandardPlan | AgreedPlan;

export const PLANS = {
  free: { title: 'Free', limits: { perMinute: 60, perDay: 1_000 }, customDomains: false },
  pro: { title: 'Pro', limits: { perMinute: 300, perDay: 10_000 }, customDomains: true },
  business: { title: 'Business', limits: { perMinute: 1_000, perDay: 100_000 }, customDomains: true },
  // 5,000 per minute is the most the default account throttle (burst 5,000) can carry.
  enterprise: {
    title: 'Enterprise',
    agreed: true,
    ceiling: { perMinute: 5_000, perDay: 5_000_000 },
    customDomains: true,
  },
} as const satisfies Record<string, PlanDefinition>;

export type PlanName = keyof typeof PLANS;

/** Every plan name, in the table's order (cheapest first). */
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

/**
 * Requests without a valid key are limited per client address. This is the allowance of
 * one address; it also slows down anyone guessing keys.
 */
export const ANONYMOUS_LIMITS: PlanLimits = { perMinute: 20, perDay: 200 };

/**
 * CORS preflights from an origin the project of the address allows, per client address (a
 * viewer, through the edge). They carry no key, so anyone can send them with that origin:
 * they never count against the project. Sized for a busy page: a browser preflights each
 * distinct URL and method once per cache time, and one address may stand for a whole office.
 */
export const PREFLIGHT_LIMITS: PlanLimits = { perMinute: 300, perDay: 10_000 };

export function isPlanName(value: string): value is PlanName {
  return Object.hasOwn(PLANS, value);
}

export function isAgreedPlan(plan: PlanDefinition): plan is AgreedPlan {
  return 'agreed' in plan;
}

export function planDefinition(plan: PlanName): PlanDefinition {
  return PLANS[plan];
}

/**
 * The limits of a plan: the table's numbers for a standard plan, the project's agreed
 * numbers for an agreed one (undefined when none were agreed, which a stored project
 * never is).
 */
export function planLimits(plan: PlanName, agreed?: PlanLimits): PlanLimits | undefined {
  const definition = planDefinition(plan);
  return isAgreedPlan(definition) ? agreed : definition.limits;
}

/**
 * Checks the numbers given with a plan; one message per problem. A standard plan takes no
 * numbers; an agreed plan needs both, whole, per day at least per minute, and within its
 * ceiling (what the gateway's usage plan for it can carry).
 */
export function planNumbersProblems(plan: PlanName, agreed: Partial<PlanLimits> | undefined): string[] {
  const definition = planDefinition(plan);
  if (!isAgreedPlan(definition)) {
    return agreed?.perMinute !== undefined || agreed?.perDay !== undefined
      ? [`The ${plan} plan has fixed numbers; per-minute and per-day numbers go with an agreed plan only.`]
      : [];
  }
  const { perMinute, perDay } = agreed ?? {};
  const { ceiling } = definition;
  const problems: string[] = [];
  if (perMinute === undefined || perDay === undefined) {
    problems.push(`The ${plan} plan needs its agreed numbers: give both per-minute and per-day.`);
    return problems;
  }
  if (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > ceiling.perMinute) {
    problems.push(`Per-minute must be a whole number from 1 to ${ceiling.perMinute} (the ${plan} ceiling).`);
  }
  if (!Number.isInteger(perDay) || perDay < perMinute || perDay > ceiling.perDay) {
    problems.push(
      `Per-day must be a whole number from the per-minute number (${perMinute}) to ${ceiling.perDay} (the ${plan} ceiling).`,
    );
  }
  return problems;
}

/** The numbers the gateway's usage plan for a plan is sized from: its limits, or its ceiling. */
export function planCapacity(plan: PlanName): PlanLimits {
  const definition = planDefinition(plan);
  return isAgreedPlan(definition) ? definition.ceiling : definition.limits;
}
