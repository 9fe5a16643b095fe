import {
  CONFIRM_PARAMETER,
  CONSOLE_API_PREFIX,
  CONSOLE_ROUTES,
  type ConsoleOperationId,
  matchConsoleRoute,
} from '../api/console-routes';
import { ApiError } from '../api/errors';
import { jsonResponse } from '../api/http';
import type { CustomDomains } from '../domain/custom-domains';
import type { ApiLambdaHandler } from '../middleware/api-handler';
import {
  type ConsoleEvent,
  consoleHandler,
  type ConsoleStackDependencies,
} from '../middleware/console-handler';

export interface ConsoleDependencies extends ConsoleStackDependencies {
  /** The domains service, over its store, the edge and DNS. */
  readonly domains: CustomDomains;
}

type Operation = (event: ConsoleEvent<unknown>) => Promise<unknown>;

/** The `{name}` path parameter, as the router decoded it. */
const nameOf = (event: ConsoleEvent<unknown>) => event.pathParameters?.name ?? '';

function addRequest(body: unknown): { name: string; redirect?: boolean } {
  const { name, redirect } = body as { name: string; redirect?: unknown };
  if (redirect !== undefined && typeof redirect !== 'boolean') {
    throw new ApiError('invalid_body', 'Invalid request body: redirect must be true or false.');
  }
  return { name, ...(redirect === undefined ? {} : { redirect }) };
}

/**
 * The console's API as one function: each route of the console route table gets its own stack
 * (its query parameters and body), and anything else under the prefix is answered 404, or 405
 * with `Allow`, after the same authentication and counting.
 */
export function consoleApi({ domains, ...stack }: ConsoleDependencies): ApiLambdaHandler {
  const operations: Record<ConsoleOperationId, Operation> = {
    listDomains: async (event) => ({ domains: await domains.list(event.project) }),
    addDomain: (event) => domains.add(event.project, addRequest(event.jsonBody)),
    verifyDomain: (event) => domains.verify(event.project, nameOf(event)),
    setPrimaryDomain: async (event) => ({ domains: await domains.setPrimary(event.project, nameOf(event)) }),
    makeRedirectDomain: (event) => domains.makeRedirect(event.project, nameOf(event)),
    removeDomain: (event) => domains.remove(event.project, nameOf(event), event.query[CONFIRM_PARAMETER]),
  };
  const handlers = new Map(
    CONSOLE_ROUTES.map((route) => [
      route.operationId,
      consoleHandler(
        route,
        async (event) => jsonResponse(route.successStatus, await operations[route.operationId](event)),
        stack,
      ),
    ]),
  );
  const unmatched = consoleHandler(
    undefined,
    async (event) => {
      const match = matchConsoleRoute(event.httpMethod, event.path);
      if (match.kind === 'method-not-allowed') {
        throw new ApiError(
          'method_not_allowed',
          `${event.path} does not take ${event.httpMethod}; it takes ${match.allow.join(', ')}.`,
          { Allow: match.allow.join(', ') },
        );
      }
      throw new ApiError(
        'not_found',
        `No console path ${event.path}: the console's paths are under ${CONSOLE_API_PREFIX}/domains.`,
      );
    },
    stack,
  );
  return async (event, context) => {
    const match = matchConsoleRoute(event.httpMethod, event.path);
    if (match.kind !== 'route') return unmatched(event, context);
    const handler = handlers.get(match.route.operationId) ?? unmatched;
    return handler({ ...event, pathParameters: { ...match.parameters } }, context);
  };
}
