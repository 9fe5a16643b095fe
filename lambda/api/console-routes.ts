import type { ConsoleSessionView } from '../core/console-views';
import {
  type DomainView,
  type Removal,
  REMOVE_CONFIRMATION,
  type Verification,
} from '../core/custom-domains/custom-domain-record';
import type { AuditAction } from '../core/audit';
import type { ConsoleAction } from '../core/permissions';
import { INVITATION_ROUTES } from './console-invitation-routes';
import { AUDIT_ROUTES } from './console-audit-routes';
import { KEY_ROUTES } from './console-key-routes';
import { MEMBER_ROUTES, SESSION_PROJECT_ROUTES } from './console-member-routes';
import { PROJECT_ROUTES } from './console-project-routes';
import { USAGE_ROUTES } from './console-usage-routes';
import { TOKEN_ROUTES } from './console-token-routes';
import type { AnyErrorCode } from './error-catalogue';
import type { Schema, SchemaValue } from './schema';

/**
 * The console's API: the backend of the dashboard, apart from the pets API (the spec: "not
 * through the HTTP interface above"). One route table, read by the console function's router,
 * local mode, the stack and the docs. Every call acts for one project, proved by its console
 * token (`Authorization: Bearer pct_…`, the tools) or by the session cookie the browser got for
 * it at sign-in; every non-2xx is the Error body.
 *
 * Each route declares its request (its path's parameters, its query parameters, its body's
 * schema) and the type of its answer once, here: the console function's operations, the typed
 * client (console-client.ts) and through it the page, the domains tool and the tests read them.
 * Nothing here needs Node: the page type-checks against this file.
 */

/** Every console path lives under this prefix, answered only at the console's own hosts ({@link isConsoleHost}). */
export const CONSOLE_API_PREFIX = '/console/api';

/**
 * The label of the console API's host, `console-api.<platform domain>`: the console
 * distribution's origin for `/console/api/*`, answered by the platform's wildcard custom domain.
 * A reserved project name (lib/config/platform.ts), so no project's address is this host.
 */
export const CONSOLE_API_HOST_LABEL = 'console-api';

/** The console API's host in AWS, `console-api.<platform domain>`. */
export function consoleApiHost(platformDomain: string): string {
  return `${CONSOLE_API_HOST_LABEL}.${platformDomain.toLowerCase()}`;
}

/**
 * Whether a request's host (`Host`, or the custom domain API Gateway names) is one the console
 * answers at: `console-api.<platform domain>` in AWS, local mode's `localhost:<port>` and
 * `127.0.0.1:<port>`. Anywhere else (a project's address, a tenant's custom domain through the
 * edge, which arrives at its project's address) the console's paths do not exist, so a name a
 * tenant controls never serves a page or an API that looks like the platform's.
 */
export function isConsoleHost(host: string | null | undefined, consoleHosts: readonly string[]): boolean {
  if (!host) return false;
  const name = host
    .trim()
    .toLowerCase()
    .replace(/\.(?=:\d+$|$)/, '');
  return consoleHosts.some((allowed) => allowed.toLowerCase() === name);
}

/**
 * Who may call a route: `signed-in`, a console token or a session (the default); `session`, the
 * session cookie alone (the session's own endpoints); `sign-in`, anyone, from the console's
 * origin (the exchange of a console token for a session).
 */
export type ConsoleAccessRule = 'signed-in' | 'session' | 'sign-in';

export type ConsoleMethod = 'GET' | 'POST' | 'DELETE';

/** A route of the console's API; its operation id names it in the code, the logs and the metrics. */
export interface ConsoleRoute<Id extends string = ConsoleOperationId> {
  readonly operationId: Id;
  readonly method: ConsoleMethod;
  /** Path template relative to {@link CONSOLE_API_PREFIX}; `{name}` is a domain name, `{keyId}` a key's id. */
  readonly path: string;
  readonly summary: string;
  readonly successStatus: 200 | 201 | 204;
  /** @default 'signed-in' */
  readonly access?: ConsoleAccessRule;
  /** The query parameters it takes; any other is refused. */
  readonly queryParameters: readonly string[];
  /** The JSON body it requires. */
  readonly requestBody?: Schema;
  /**
   * What it does, in the permission table's terms (lambda/core/permissions.ts): a caller whose
   * role may not is refused 403 `action_not_permitted`. None: any signed-in caller (the session's own).
   */
  readonly action?: ConsoleAction;
  /** What it changes, in the audit log's words (lambda/core/audit.ts): each call is recorded. */
  readonly audit?: AuditAction;
  /** Its own error codes (besides authentication, rate limits and the store's). */
  readonly errors: readonly AnyErrorCode[];
  /** The type of its answer's body ({@link answers}); `void` for a 204. */
  readonly answer: unknown;
}

/**
 * A route's answer type, carried by its declaration for the compiler: `undefined` at run time,
 * so the table costs the page nothing for it.
 */
function answers<Body>(): Body | undefined {
  return undefined;
}

/** `POST /domains`: the name as typed (normalized by the service), and whether it is a redirect. */
export const ADD_DOMAIN_BODY = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 300 },
    redirect: { type: 'boolean' },
  },
  additionalProperties: false,
} as const satisfies Schema;

/** `POST /session`: the project's console token, exchanged for a session. */
export const CREATE_SESSION_BODY = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 200 } },
  additionalProperties: false,
} as const satisfies Schema;

/** The query parameter of a removal's confirmation (a DELETE carries no body: RFC 9110 §9.3.5). */
export const CONFIRM_PARAMETER = 'confirm';

/** Its value: the caller knows traffic to the domain stops. */
export { REMOVE_CONFIRMATION };

const DECLARED_ROUTES = [
  {
    operationId: 'createSession',
    method: 'POST',
    path: '/session',
    summary:
      'Signs in: exchanges the console token (`{"token": "pct_…"}`) for a session cookie, and answers the session\'s CSRF token. Only from the console\'s origin.',
    successStatus: 201,
    access: 'sign-in',
    queryParameters: [],
    requestBody: CREATE_SESSION_BODY,
    errors: ['invalid_console_token', 'csrf_origin_refused', 'too_many_sessions'],
    answer: answers<ConsoleSessionView>(),
  },
  {
    operationId: 'getSession',
    method: 'GET',
    path: '/session',
    summary: 'The session of the cookie: its project, its CSRF token and when it ends.',
    successStatus: 200,
    access: 'session',
    queryParameters: [],
    errors: [],
    answer: answers<ConsoleSessionView>(),
  },
  {
    operationId: 'deleteSession',
    method: 'DELETE',
    path: '/session',
    summary: 'Signs out: ends the session and clears its cookie.',
    successStatus: 204,
    access: 'session',
    queryParameters: [],
    audit: 'sign-out',
    errors: [],
    answer: answers<void>(),
  },
  ...SESSION_PROJECT_ROUTES,
  // The self-service start (issue 27).
  ...PROJECT_ROUTES,
  ...USAGE_ROUTES,
  ...KEY_ROUTES,
  {
    operationId: 'listDomains',
    method: 'GET',
    path: '/domains',
    summary:
      "The project's custom domains, primary first: role, state, the DNS record to create, the certificate's state and how long each has been in its state.",
    successStatus: 200,
    action: 'listDomains',
    queryParameters: [],
    errors: [],
    answer: answers<{ readonly domains: readonly DomainView[] }>(),
  },
  {
    operationId: 'addDomain',
    method: 'POST',
    path: '/domains',
    summary:
      'Adds a domain (`{"name": "shop.example.com", "redirect": false}`) in pending-dns, and shows the record to create.',
    successStatus: 201,
    action: 'manageDomains',
    queryParameters: [],
    requestBody: ADD_DOMAIN_BODY,
    audit: 'domain.add',
    errors: [
      'invalid_domain',
      'plan_without_custom_domains',
      'domain_taken',
      'domain_role_conflict',
      'too_many_domains',
    ],
    answer: answers<DomainView>(),
  },
  {
    operationId: 'verifyDomain',
    method: 'POST',
    path: '/domains/{name}/verify',
    summary:
      'Verifies (or re-verifies) the domain: the DNS verdict and its fix; verified, the certificate is requested (again, after a timeout).',
    successStatus: 200,
    action: 'manageDomains',
    queryParameters: [],
    audit: 'domain.verify',
    errors: ['domain_not_found', 'domain_taken', 'domain_busy', 'dns_unavailable'],
    answer: answers<Verification>(),
  },
  {
    operationId: 'setPrimaryDomain',
    method: 'POST',
    path: '/domains/{name}/primary',
    summary: 'Makes the domain the primary; redirects then point at it.',
    successStatus: 200,
    action: 'setDomainRoles',
    queryParameters: [],
    audit: 'domain.primary',
    errors: ['domain_not_found', 'domain_role_conflict', 'domain_busy'],
    answer: answers<{ readonly domains: readonly DomainView[] }>(),
  },
  {
    operationId: 'makeRedirectDomain',
    method: 'POST',
    path: '/domains/{name}/redirect',
    summary: 'Makes the domain answer 301 to the primary, keeping path and query.',
    successStatus: 200,
    action: 'setDomainRoles',
    queryParameters: [],
    audit: 'domain.redirect',
    errors: ['domain_not_found', 'domain_role_conflict', 'domain_busy'],
    answer: answers<DomainView>(),
  },
  {
    operationId: 'removeDomain',
    method: 'DELETE',
    path: '/domains/{name}',
    summary: `Removes the domain: the host is refused at once. One that has served traffic and is not a redirect needs \`?${CONFIRM_PARAMETER}=${REMOVE_CONFIRMATION}\`.`,
    successStatus: 200,
    action: 'removeDomains',
    queryParameters: [CONFIRM_PARAMETER],
    audit: 'domain.remove',
    errors: ['domain_not_found', 'confirmation_required', 'domain_role_conflict'],
    answer: answers<Removal>(),
  },
  ...MEMBER_ROUTES,
  ...INVITATION_ROUTES,
  ...AUDIT_ROUTES,
  ...TOKEN_ROUTES,
] as const satisfies readonly ConsoleRoute<string>[];

/** The console's routes, in the order of the docs' table. */
export const CONSOLE_ROUTES: readonly ConsoleRoute[] = DECLARED_ROUTES;

type DeclaredRoute = (typeof DECLARED_ROUTES)[number];

export type ConsoleOperationId = DeclaredRoute['operationId'];

/** The declaration of one route, with its literal path, query parameters and body schema. */
export type ConsoleRouteOf<Id extends ConsoleOperationId> = Extract<DeclaredRoute, { operationId: Id }>;

/** `{name: string}` for `/domains/{name}/verify`. */
type PathParameters<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? { readonly [K in Name]: string } & PathParameters<Rest>
  : unknown;

type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The body a route takes, as its schema accepts it; `undefined` when it takes none. */
export type ConsoleBody<Id extends ConsoleOperationId> =
  ConsoleRouteOf<Id> extends { readonly requestBody: infer Body } ? SchemaValue<Body> : undefined;

/** What a call of the route gives: its path's parameters, its query and its body, where it has them. */
export type ConsoleRequest<Id extends ConsoleOperationId> = Flat<
  (ConsoleRouteOf<Id>['path'] extends `${string}{${string}`
    ? { readonly path: PathParameters<ConsoleRouteOf<Id>['path']> }
    : unknown) &
    (ConsoleRouteOf<Id>['queryParameters'] extends readonly []
      ? unknown
      : { readonly query?: { readonly [K in ConsoleRouteOf<Id>['queryParameters'][number]]?: string } }) &
    (ConsoleBody<Id> extends undefined ? unknown : { readonly body: ConsoleBody<Id> })
>;

/** The body of a route's answer (`void` for a 204). */
export type ConsoleAnswer<Id extends ConsoleOperationId> = Exclude<ConsoleRouteOf<Id>['answer'], undefined>;

export type ConsoleMatch =
  | {
      readonly kind: 'route';
      readonly route: ConsoleRoute;
      readonly parameters: Readonly<Record<string, string>>;
    }
  /** The path exists with other methods. */
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly ConsoleMethod[] }
  | { readonly kind: 'not-found' };

function matchPath(template: string, path: string): Record<string, string> | undefined {
  const pattern = `${CONSOLE_API_PREFIX}${template}`.split('/');
  const actual = path.split('/');
  if (pattern.length !== actual.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const value = actual[index] ?? '';
    const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
    if (parameter !== undefined) {
      if (value === '') return undefined;
      try {
        parameters[parameter] = decodeURIComponent(value);
      } catch {
        return undefined;
      }
    } else if (part !== value) {
      return undefined;
    }
  }
  return parameters;
}

/** The console route of a request's method and path (the full path, prefix included; a trailing `/` ignored). */
export function matchConsoleRoute(method: string, pathname: string): ConsoleMatch {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const allow: ConsoleMethod[] = [];
  for (const route of CONSOLE_ROUTES) {
    const parameters = matchPath(route.path, path);
    if (!parameters) continue;
    if (route.method === method) return { kind: 'route', route, parameters };
    allow.push(route.method);
  }
  return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
}

/**
 * Sign-in through the identity provider (issue 26): browser navigations, not API calls, so
 * outside the route table; under the prefix, so they reach the console function wherever its
 * API does. The start sends the browser to the provider; the provider sends it back to the
 * callback, the redirect URI registered exactly at the provider.
 */
export const SIGN_IN_START_PATH = `${CONSOLE_API_PREFIX}/sign-in/start`;
export const SIGN_IN_CALLBACK_PATH = `${CONSOLE_API_PREFIX}/sign-in/callback`;
/** The start's query parameter: the console path to land on (a path of the page, else `/console/`). */
export const RETURN_TO_PARAMETER = 'returnTo';

/** True for a path the console's API answers (everything under the prefix). */
export function isConsolePath(pathname: string): boolean {
  return pathname === CONSOLE_API_PREFIX || pathname.startsWith(`${CONSOLE_API_PREFIX}/`);
}
