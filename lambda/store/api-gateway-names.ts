import type { PlanName } from '../core/plans';

/**
 * How API Gateway resources of a stack are named, read by the CDK app (which creates the usage
 * plans), the projects tool and the console function's self-service start (which add keys to them).
 */

/** The usage plan of every caller without a valid key (the service limits each address). */
export const ANONYMOUS_PLAN = 'anonymous';

/** The usage plan of every preflight from an origin a project allows (the service limits each address). */
export const PREFLIGHT_PLAN = 'preflight';

/** The usage plans that stand for keyless callers rather than a plan of the plan table. */
export type KeylessPlan = typeof ANONYMOUS_PLAN | typeof PREFLIGHT_PLAN;

/**
 * Name of the API Gateway usage plan of a plan in a stack, e.g. `AnimalStore-production-pro`
 * or `AnimalStore-production-anonymous`.
 */
export function usagePlanName(stackName: string, plan: PlanName | KeylessPlan): string {
  return `${stackName}-${plan}`;
}

/**
 * Name of a project's API Gateway key, e.g. `AnimalStore-production-project-acme`. The
 * stack name keeps the environments apart (they share the account's keys), and `project`
 * keeps a project named like a usage plan (`anonymous`) apart from the stack's own key.
 */
export function projectKeyName(stackName: string, project: string): string {
  return `${stackName}-project-${project}`;
}
