import type { ProjectOverview } from './console-views';
import { PLAN_NAMES, PLANS, type PlanName } from './plans';
import { type ProjectRecord, projectLimits } from './project';
import { counterIdOf, type CounterStore, projectIdentity } from './rate-limiter';
import { windowsAt } from './rate-limit';

export type { ProjectOverview, WindowUsage } from './console-views';

/**
 * A project's overview for its console: its plan and limits, whether it may have custom domains,
 * and how much of this UTC minute and day its API calls have used, read from the rate limiter's
 * own counter (identity `project:<name>`, the one every key of the project is counted on; the
 * console's own calls are counted apart and do not show).
 */

/** The spec's words: custom domains come with any paid plan (Pro or above). */
function customDomainsOf(plan: PlanName): ProjectOverview['customDomains'] {
  if (PLANS[plan].customDomains) return { allowed: true };
  const paid = PLAN_NAMES.filter((name) => PLANS[name].customDomains).map((name) => PLANS[name].title);
  return {
    allowed: false,
    reason: `Custom domains need a paid plan (${paid[0] ?? 'Pro'} or above); this project is on the ${PLANS[plan].title} plan.`,
  };
}

export async function projectOverview(
  project: ProjectRecord,
  counters: Pick<CounterStore, 'read'>,
  nowMs: number,
  address: string,
): Promise<ProjectOverview> {
  const limits = projectLimits(project);
  const windows = windowsAt(nowMs);
  const state = await counters.read(counterIdOf(projectIdentity(project.name), nowMs));
  // A counter last moved in an earlier minute has counted nothing in this one.
  const minuteUsed = state && state.minute >= windows.minute ? state.minuteCount : 0;
  return {
    project: { name: project.name, plan: project.plan, address },
    limits,
    customDomains: customDomainsOf(project.plan),
    usage: {
      minute: {
        used: minuteUsed,
        limit: limits.perMinute,
        resetsAt: new Date(windows.minuteResetMs).toISOString(),
      },
      day: {
        used: state?.dayCount ?? 0,
        limit: limits.perDay,
        resetsAt: new Date(windows.dayResetMs).toISOString(),
      },
    },
  };
}
