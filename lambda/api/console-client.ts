import {
  type ConsoleAnswer,
  type ConsoleMethod,
  type ConsoleOperationId,
  type ConsoleRequest,
  CONSOLE_ROUTES,
} from './console-routes';

/**
 * The one typed client of the console's API, built from its route table: the page, the domains
 * tool and the tests call a route by its operation id with the request its declaration takes
 * and get the answer it declares. How a call travels (the browser's cookie and CSRF token, a
 * tool's console token, the base URL, what a refusal becomes) is the transport's. No Node: the
 * page bundles it.
 */

/** One call as it goes on the wire: the path under the console API's prefix, its query included. */
export interface ConsoleCall {
  readonly operationId: ConsoleOperationId;
  readonly method: ConsoleMethod;
  readonly path: string;
  /** The JSON body, for a route that takes one. */
  readonly body?: unknown;
}

/**
 * Sends a call and answers the parsed JSON body of its 2xx (undefined for a 204); throws, in
 * the caller's own terms, for anything else. The answer is the declared one: the service is the
 * route table's other reader.
 */
export type ConsoleTransport = <Answer>(call: ConsoleCall) => Promise<Answer>;

/** The request argument: optional for a route that takes nothing. */
type RequestArguments<Id extends ConsoleOperationId> =
  Record<never, never> extends ConsoleRequest<Id>
    ? [request?: ConsoleRequest<Id>]
    : [request: ConsoleRequest<Id>];

export interface ConsoleClient {
  /** Calls the route `operationId` with its request; resolves to its answer. */
  call<Id extends ConsoleOperationId>(
    operationId: Id,
    ...request: RequestArguments<Id>
  ): Promise<ConsoleAnswer<Id>>;
}

/** What any route's request may hold, read when the call is built. */
interface AnyRequest {
  readonly path?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
}

const ROUTES = new Map(CONSOLE_ROUTES.map((route) => [route.operationId, route]));

/** The call of a route: its path's parameters encoded in place, its query appended. */
export function consoleCall(operationId: ConsoleOperationId, request: AnyRequest = {}): ConsoleCall {
  const route = ROUTES.get(operationId);
  if (!route) throw new Error(`No console route ${operationId}.`);
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(request.path?.[name] ?? ''),
  );
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) query.set(name, value);
  }
  const search = query.toString();
  return {
    operationId,
    method: route.method,
    path: search ? `${path}?${search}` : path,
    ...(request.body === undefined ? {} : { body: request.body }),
  };
}

export function consoleClient(transport: ConsoleTransport): ConsoleClient {
  return {
    call: (operationId, ...[request]) => transport(consoleCall(operationId, request)),
  };
}
