import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { ApiError } from '../api/errors';
import type { CreatedProjectView } from '../core/console-views';
import { type SelfServiceDoor, SelfServiceRefusal } from '../core/self-service';
import type { SessionEvent } from '../middleware/console-handler';
import { log, SELF_SERVICE_METRIC, serviceMetrics } from '../shared/observability';

/**
 * The console's self-service start (issue 27): `POST /projects`, a person's own Free project.
 * The rules and caps are lambda/core/self-service.ts's; here they get the console's words.
 */

/**
 * A create at or past the warning share of the platform's cap: a warning in the log and the
 * count as a metric, so an alarm can ask for the cap to be raised (or another account) in time.
 */
export function warnNearSelfServiceCap(count: number, cap: number): void {
  log().warn('self-service projects near their cap', { selfServiceProjects: count, cap });
  const metric = serviceMetrics('requests').singleMetric();
  metric.addMetric(SELF_SERVICE_METRIC, MetricUnit.Count, count);
}

type RefusalCode =
  | 'self_service_off'
  | 'too_many_projects'
  | 'self_service_full'
  | 'invalid_project_name'
  | 'project_name_taken';

/** The self-service rules' refusals, by their codes in the console's catalogue. */
const CODE_OF: Record<SelfServiceRefusal['kind'], RefusalCode> = {
  self_service_off: 'self_service_off',
  too_many_projects: 'too_many_projects',
  self_service_full: 'self_service_full',
  gateway_full: 'self_service_full',
  invalid_name: 'invalid_project_name',
  name_taken: 'project_name_taken',
  former_name: 'project_name_taken',
};

/** The self-service operations of the console's route table. */
export function projectOperations(selfService: SelfServiceDoor, projectAddress: (project: string) => string) {
  return {
    createProject: async (event: SessionEvent<{ readonly name: string }>) => {
      const person = event.session?.record.person;
      // Only a person's session: a console token's holder (or its session) is no person to own one.
      if (!event.session || !person) {
        throw new ApiError(
          'action_not_permitted',
          'Only a person signed in through the identity provider creates projects: a console token owns none.',
        );
      }
      try {
        const { project, firstKey } = await selfService.create(person, event.jsonBody.name);
        const { keyId, name, createdAt } = firstKey.record;
        const body: CreatedProjectView = {
          project: { name: project.name, plan: project.plan, address: projectAddress(project.name) },
          firstKey: { apiKey: firstKey.apiKey, key: { keyId, name, createdAt } },
        };
        return { body };
      } catch (error) {
        if (error instanceof SelfServiceRefusal) throw new ApiError(CODE_OF[error.kind], error.message);
        throw error;
      }
    },
  };
}
