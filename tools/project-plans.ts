import {
  isAgreedPlan,
  isPlanName,
  type PlanLimits,
  type PlanName,
  PLAN_NAMES,
  PLANS,
} from '../lambda/core/plans';
import { type ProjectRecord, projectLimits } from '../lambda/core/project';
import { UsageError } from './failures';

/** The projects tool's plans: the names its help lists, and its plan options parsed and worded. */

export const STANDARD_PLANS = PLAN_NAMES.filter((plan) => !isAgreedPlan(PLANS[plan]));
export const AGREED_PLANS = PLAN_NAMES.filter((plan) => isAgreedPlan(PLANS[plan]));

/** `enterprise (at most 5000 per minute, 5000000 per day)`: an agreed plan and its ceiling. */
export function agreedPlanText(plan: PlanName): string {
  const definition = PLANS[plan];
  return isAgreedPlan(definition)
    ? `${plan} (at most ${definition.ceiling.perMinute} per minute, ${definition.ceiling.perDay} per day)`
    : plan;
}

export function parsePlan(value: string): PlanName {
  if (!isPlanName(value)) {
    throw new UsageError(`Unknown plan ${JSON.stringify(value)}: use one of ${PLAN_NAMES.join(', ')}.`);
  }
  return value;
}

/** The agreed numbers given, each a whole number as typed (planNumbersProblems words the range). */
export function parseNumbers(
  perMinute: string | undefined,
  perDay: string | undefined,
): Partial<PlanLimits> | undefined {
  if (perMinute === undefined && perDay === undefined) return undefined;
  const count = (option: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value))
      throw new UsageError(`--${option} ${JSON.stringify(value)} is not a whole number.`);
    return Number(value);
  };
  return { perMinute: count('per-minute', perMinute), perDay: count('per-day', perDay) };
}

export function limitsText(project: Pick<ProjectRecord, 'plan' | 'agreedLimits'>): string {
  const { perMinute, perDay } = projectLimits(project);
  return `${perMinute} per minute, ${perDay} per day`;
}
