import { ANONYMOUS_LIMITS, isAgreedPlan, PLAN_NAMES, PLANS, PREFLIGHT_LIMITS } from '../lambda/core/plans';

/** Rows of the plan table as people read it (docs, the published document), from the plan table itself. */
export function planTableRows(): [plan: string, perMinute: string, perDay: string][] {
  const number = (n: number) => n.toLocaleString('en-US');
  return [
    ...PLAN_NAMES.map((name): [string, string, string] => {
      const plan = PLANS[name];
      return isAgreedPlan(plan)
        ? [
            `\`${name}\``,
            `agreed per project (at most ${number(plan.ceiling.perMinute)})`,
            `agreed per project (at most ${number(plan.ceiling.perDay)})`,
          ]
        : [`\`${name}\``, number(plan.limits.perMinute), number(plan.limits.perDay)];
    }),
    ['no valid key (per client IP)', number(ANONYMOUS_LIMITS.perMinute), number(ANONYMOUS_LIMITS.perDay)],
    [
      'CORS preflight from an allowed origin (per client IP)',
      number(PREFLIGHT_LIMITS.perMinute),
      number(PREFLIGHT_LIMITS.perDay),
    ],
  ];
}
