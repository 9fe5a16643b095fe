import type { CreatedProjectView } from '../core/console-views';
import type { ConsoleRoute } from './console-routes';
import type { Schema } from './schema';

/**
 * The console's self-service start (issue 27): a signed-in person creates a project of their
 * own. Declared apart from console-routes.ts, which spreads it into its one route table.
 */

/** A route's answer type for the compiler (as console-routes.ts's `answers`). */
function answers<Body>(): Body | undefined {
  return undefined;
}

/** `POST /projects`: the new project's name, its address's label (checked as the projects tool checks it). */
export const CREATE_PROJECT_BODY = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
  additionalProperties: false,
} as const satisfies Schema;

export const PROJECT_ROUTES = [
  {
    operationId: 'createProject',
    method: 'POST',
    path: '/projects',
    summary:
      'Creates a project of your own on the Free plan (`{"name": "acme"}`), with you as its owner, and its first API key (in the answer once). A person\'s session only, with or without a project; then switch to it (`POST /session/project`).',
    successStatus: 201,
    access: 'session',
    audit: 'project.create',
    queryParameters: [],
    requestBody: CREATE_PROJECT_BODY,
    errors: [
      'self_service_off',
      'invalid_project_name',
      'project_name_taken',
      'too_many_projects',
      'self_service_full',
      'action_not_permitted',
    ],
    answer: answers<CreatedProjectView>(),
  },
] as const satisfies readonly ConsoleRoute<string>[];
