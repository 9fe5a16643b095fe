import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  CONFIRM_PARAMETER,
  CONSOLE_API_PREFIX,
  CONSOLE_ROUTES,
  type ConsoleAnswer,
  type ConsoleBody,
  type ConsoleOperationId,
  type ConsoleRoute,
  type ConsoleRouteOf,
  isConsoleHost,
  matchConsoleRoute,
} from '../api/console-routes';
import { clearedSessionCookie, sessionCookie } from '../api/console-cookies';
import { toErrorResponse } from '../api/error-response';
import { ApiError } from '../api/errors';
import { gatewayError } from '../api/gateway-errors';
import { headerValue, jsonResponse } from '../api/http';
import { type ApiKeyRecord, KEY_ID_LENGTH } from '../core/api-key';
import type { ApiKeyView } from '../core/console-views';
import { MAX_DOMAIN_NAME } from '../core/custom-domains/custom-domain';
import {
  MAX_LIVE_SESSIONS_PER_PROJECT,
  SESSION_IDLE_TIMEOUT_MS,
  SESSION_MAX_LIFETIME_MS,
  sessionView,
} from '../core/console-session';
import type { CustomDomains } from '../core/custom-domains/custom-domains';
import type { Invitations } from '../core/invitations';
import type { Members } from '../core/members';
import {
  KeyRefusal,
  KeyRotationFailed,
  MAX_ACTIVE_KEYS_PER_PROJECT,
  type ProjectKeys,
} from '../core/project-keys';
import { projectLimits } from '../core/project';
import type { CounterStore } from '../core/rate-limiter';
import { projectOverview } from '../core/usage';
import { usageHistory, type UsageReader } from '../core/usage-history';
import { USAGE_OPERATIONS } from '../api/routes';
import type { ApiLambdaHandler } from '../middleware/api-handler';
import {
  type ConsoleEvent,
  consoleHandler,
  type ConsoleStackDependencies,
  type SessionEvent,
} from '../middleware/console-handler';
import { invitationOperations } from './console-invitations';
import type { SelfServiceDoor } from '../core/self-service';
import { memberOperations } from './console-members';
import { projectOperations } from './console-projects';
import { auditOperations, recordConsoleCall, recordTokenSignIn, signInRequestOf } from './console-audit';
import type { AuditLog } from '../core/audit';
import type { PersonalTokens } from '../core/personal-tokens';
import { tokenOperations } from './console-tokens';

export interface ConsoleDependencies extends ConsoleStackDependencies {
  /** The domains service, over its store, the edge and DNS. */
  readonly domains: CustomDomains;
  /** The member rules the members tool shares, over the members and projects tables. */
  readonly members: Members;
  /** Invitations (issue 27): sending, listing, revoking, opening a link. */
  readonly invitations: Invitations;
  /** The key rules the keys tool shares, over the keys and projects tables. */
  readonly keys: ProjectKeys;
  /** Members' personal access tokens (issue 28). */
  readonly tokens: PersonalTokens;
  /** The rate limiter's counters, read for the overview's usage and the usage history. */
  readonly counters: Pick<CounterStore, 'read'> & UsageReader;
  /** The address of a project's API (`https://<name>.<platform domain>/v1`). */
  readonly projectAddress: (project: string) => string;
  /** Epoch milliseconds (the usage windows). */
  readonly clock: () => number;
  /**
   * The hosts the console's API answers at: `console-api.<platform domain>` in AWS (the console
   * distribution's origin), `localhost:<port>` and `127.0.0.1:<port>` in local mode. At any other
   * host every console path is 404, as a path the API does not have.
   */
  readonly consoleHosts: readonly string[];
  /** Sign-in through the identity provider (issue 26): its handlers by path, when one is set up. */
  readonly signIn?: (path: string) => ApiLambdaHandler | undefined;
  /** A person's own projects (issue 27): on, or off with how to get one. */
  readonly selfService: SelfServiceDoor;
  /** The audit log (issue 28): every call of a route that names an `audit` action is recorded in it. */
  readonly auditLog: AuditLog;
}

/** What an operation answers: its route's declared body (none for a 204), and headers of its own. */
type Reply<Answer> = { readonly headers?: Record<string, string> } & ([Answer] extends [void]
  ? { readonly body?: undefined }
  : { readonly body: Answer });

/** The event of a route: a session's own routes may have no project (a person who has none yet). */
type EventOf<Id extends ConsoleOperationId> =
  ConsoleRouteOf<Id> extends { readonly access: 'session' }
    ? SessionEvent<ConsoleBody<Id>>
    : ConsoleEvent<ConsoleBody<Id>>;

/** An operation: the request its route declares in, the answer it declares out. */
type Operation<Id extends ConsoleOperationId> = (event: EventOf<Id>) => Promise<Reply<ConsoleAnswer<Id>>>;

type Operations = { readonly [Id in ConsoleOperationId]: Operation<Id> };

/**
 * The `{name}` and `{keyId}` path parameters, as the router decoded them, length-checked before
 * any lookup: one longer than any domain or key can be is the caller's mistake (400), never a
 * lookup the store refuses. One of a possible length that does not exist is not found (404).
 */
function nameOf(event: ConsoleEvent<unknown>): string {
  const name = event.pathParameters?.name ?? '';
  // A trailing dot is allowed; an internationalized name only grows when made punycode.
  if (name.length > MAX_DOMAIN_NAME + 1) {
    throw new ApiError(
      'invalid_domain',
      `The domain name in the path is ${name.length} characters long: a domain name has at most ${MAX_DOMAIN_NAME}.`,
    );
  }
  return name;
}

function keyIdOf(event: ConsoleEvent<unknown>): string {
  const keyId = event.pathParameters?.keyId ?? '';
  if (keyId.length > KEY_ID_LENGTH) {
    throw new ApiError(
      'invalid_parameter',
      `The key id in the path is ${keyId.length} characters long: a key id has ${KEY_ID_LENGTH} (GET ${CONSOLE_API_PREFIX}/keys lists them).`,
    );
  }
  return keyId;
}

/** A key as the console shows it: never its secret or its hash. */
function keyView({ keyId, name, createdAt, revokedAt }: ApiKeyRecord): ApiKeyView {
  return { keyId, name, createdAt, ...(revokedAt ? { revokedAt } : {}) };
}

/** The key rules' refusals, in the console's words (another project's key is not found either). */
async function keyCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof KeyRefusal) {
      switch (error.kind) {
        case 'key_revoked':
          throw new ApiError(
            'key_revoked',
            error.replacedBy
              ? `Key ${error.subject} was rotated at ${error.revokedAt}: key ${error.replacedBy} replaced it, so it cannot be rotated again.`
              : `Key ${error.subject} was revoked at ${error.revokedAt}: it cannot be rotated; create a new key.`,
          );
        case 'too_many_keys':
          throw new ApiError(
            'too_many_keys',
            `The project has ${MAX_ACTIVE_KEYS_PER_PROJECT} active keys, the most a project may have: revoke one first.`,
          );
        case 'key_not_found':
        case 'key_without_project':
          throw new ApiError('key_not_found', `The project has no key ${error.subject}.`);
        case 'no_such_project':
          break;
      }
    }
    if (error instanceof KeyRotationFailed) {
      throw new ApiError(
        'service_unavailable',
        `Key ${error.keyId} could not be revoked, so it still works${error.withdrawn ? ' and no new key was made' : `; revoke the new key ${error.newKeyId}`}. Retry after the Retry-After delay.`,
        { 'Retry-After': '1' },
      );
    }
    throw error;
  }
}

/** The session operations are reached only with a session (the route's access rule). */
function sessionOf(event: SessionEvent<unknown>) {
  if (!event.session) throw new ApiError('not_signed_in', 'Not signed in.');
  return event.session;
}

function result(
  route: ConsoleRoute,
  reply: { readonly body?: unknown; readonly headers?: Record<string, string> },
): APIGatewayProxyResult {
  if (route.successStatus === 204) {
    return { statusCode: 204, headers: { ...reply.headers }, body: '' };
  }
  // A text answer (the audit log's JSON Lines export) carries its own Content-Type.
  if (typeof reply.body === 'string') {
    return { statusCode: route.successStatus, headers: { ...reply.headers }, body: reply.body };
  }
  return jsonResponse(route.successStatus, reply.body, reply.headers);
}

/**
 * The console's API as one function: each route of the console route table gets its own stack
 * (its access rule, query parameters and body), and anything else under the prefix is answered
 * 404, or 405 with `Allow`, after the same authentication and counting.
 */
export function consoleApi({
  domains,
  members,
  invitations,
  keys,
  tokens,
  counters,
  projectAddress,
  clock,
  consoleHosts,
  signIn,
  selfService,
  auditLog,
  ...stack
}: ConsoleDependencies): ApiLambdaHandler {
  const { sessions } = stack;
  const project = (event: ConsoleEvent<unknown>) => event.project.name;
  const operations: Operations = {
    createSession: async (event) => {
      const signIn = await sessions.signIn(event.jsonBody.token);
      await recordTokenSignIn(auditLog, clock, signIn, signInRequestOf(event));
      if (!signIn.signedIn && signIn.failure === 'too_many_sessions') {
        throw new ApiError(
          'too_many_sessions',
          `The project has ${MAX_LIVE_SESSIONS_PER_PROJECT} live console sessions, the most it may have: sign out in another browser, wait for an idle one to end (${SESSION_IDLE_TIMEOUT_MS / 60_000} minutes), or rotate the console token to end them all.`,
        );
      }
      if (!signIn.signedIn && signIn.failure === 'console_token_retired') {
        throw new ApiError(
          'console_token_retired',
          'The project has owners now, so its console token no longer opens its console: sign in as a member.',
        );
      }
      if (!signIn.signedIn) {
        throw new ApiError('invalid_console_token', 'The console token is not valid.');
      }
      return {
        body: signIn.session,
        headers: { 'Set-Cookie': sessionCookie(signIn.secret, SESSION_MAX_LIFETIME_MS / 1000) },
      };
    },
    getSession: async (event) => {
      const { record, secret } = sessionOf(event);
      const view = sessionView(record, secret, event.role, await sessions.membershipsOf(record));
      return { body: record.person ? { ...view, selfService: selfService.view() } : view };
    },
    deleteSession: async (event) => {
      await sessions.signOut(sessionOf(event).secret);
      return { headers: { 'Set-Cookie': clearedSessionCookie() } };
    },
    ...memberOperations(members, sessions),
    ...invitationOperations(invitations),
    ...projectOperations(selfService, projectAddress),
    ...auditOperations(auditLog),
    ...tokenOperations(tokens),
    getUsage: async (event) => ({
      body: await projectOverview(event.project, counters, clock(), projectAddress(project(event))),
    }),
    getUsageHistory: async (event) => ({
      body: await usageHistory(project(event), projectLimits(event.project), counters, clock(), {
        operations: USAGE_OPERATIONS,
      }),
    }),
    listKeys: async (event) => ({
      body: { keys: (await keyCall(() => keys.listOf(project(event)))).map(keyView) },
    }),
    createKey: async (event) => {
      const { name } = event.jsonBody;
      const { apiKey, record } = await keyCall(() => keys.create(project(event), name));
      return { body: { apiKey, key: keyView(record) } };
    },
    rotateKey: async (event) => {
      const rotated = await keyCall(() => keys.rotate(keyIdOf(event), { project: project(event) }));
      return { body: { apiKey: rotated.apiKey, key: keyView(rotated.record), replaces: rotated.replaces } };
    },
    revokeKey: async (event) => {
      const revoked = await keyCall(() => keys.revoke(keyIdOf(event), { project: project(event) }));
      return { body: { key: keyView(revoked) } };
    },
    listDomains: async (event) => ({ body: { domains: await domains.list(event.project) } }),
    addDomain: async (event) => ({ body: await domains.add(event.project, event.jsonBody) }),
    verifyDomain: async (event) => ({ body: await domains.verify(event.project, nameOf(event)) }),
    setPrimaryDomain: async (event) => ({
      body: { domains: await domains.setPrimary(event.project, nameOf(event)) },
    }),
    makeRedirectDomain: async (event) => ({
      body: await domains.makeRedirect(event.project, nameOf(event)),
    }),
    removeDomain: async (event) => ({
      body: await domains.remove(event.project, nameOf(event), event.query[CONFIRM_PARAMETER]),
    }),
  };
  const handlerOf = <Id extends ConsoleOperationId>(route: ConsoleRoute<Id>) => {
    const operation: Operation<Id> = operations[route.operationId];
    return consoleHandler<ConsoleBody<Id>>(
      route,
      // The route's access rule decides the event's shape (EventOf): a session route's may have no project.
      async (event) => result(route, await operation(event as EventOf<Id>)),
      stack,
    );
  };
  const handlers = new Map(CONSOLE_ROUTES.map((route) => [route.operationId, handlerOf(route)]));
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
        `No console path ${event.path}: the console's paths are under ${CONSOLE_API_PREFIX} (session, usage, keys, domains).`,
      );
    },
    stack,
  );
  return async (event, context) => {
    // Before anything is read or counted: elsewhere the console does not exist.
    const host = event.requestContext?.domainName ?? headerValue(event.headers, 'host');
    if (!isConsoleHost(host, consoleHosts)) {
      return toErrorResponse(gatewayError('MISSING_AUTHENTICATION_TOKEN'));
    }
    const signInHandler = signIn?.(event.path);
    if (signInHandler) return signInHandler(event, context);
    const match = matchConsoleRoute(event.httpMethod, event.path);
    if (match.kind !== 'route') return unmatched(event, context);
    const handler = handlers.get(match.route.operationId) ?? unmatched;
    const routed = { ...event, pathParameters: { ...match.parameters } };
    const answer = await handler(routed, context);
    // The one place console calls are recorded: the stack has found the caller on `routed`.
    if (match.route.audit) await recordConsoleCall(auditLog, match.route, routed, answer, clock);
    return answer;
  };
}
