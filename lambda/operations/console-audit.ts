import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type AuditLogPage, JSON_LINES_TYPE } from '../api/console-audit-routes';
import { CONSOLE_API_PREFIX, type ConsoleRoute } from '../api/console-routes';
import { CONSOLE_ERROR_CATALOGUE } from '../api/console-error-catalogue';
import { ApiError } from '../api/errors';
import { headerValue } from '../api/http';
import {
  actorOfAccess,
  type AuditActor,
  type AuditLog,
  type AuditOutcome,
  type AuditQuery,
  ENTRY_ID_PATTERN,
  isAuditAction,
  MAX_TARGET,
  MAX_USER_AGENT,
} from '../core/audit';
import type { SignIn } from '../core/console-session';
import { PAGE_LIMIT } from '../core/limits';
import { clientAddressOf, type ConsoleEvent, consoleAccessOf } from '../middleware/console-handler';
import { logError } from '../shared/observability';

/**
 * The console's audit log (issue 28): the one place its calls are recorded (each call of a route
 * that names an `audit` action, whatever its outcome, by whoever was found to make it), and its
 * two reading routes.
 */

/** The most entries one export call answers (a Lambda answer holds 6 MB; an entry is under 1 KB). */
export const MAX_EXPORT_ENTRIES = 1000;

/** A cursor: the last entry id of a page, base64url. Reads stay in the caller's partition, so it needs no MAC. */
function encodeAuditCursor(entryId: string): string {
  return Buffer.from(entryId).toString('base64url');
}

function decodeAuditCursor(text: string): string {
  const entryId = /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url').toString() : '';
  if (!ENTRY_ID_PATTERN.test(entryId) || encodeAuditCursor(entryId) !== text) {
    throw new ApiError(
      'invalid_cursor',
      'The cursor is not valid; use the cursor of the previous page unchanged.',
    );
  }
  return entryId;
}

function isoParameter(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new ApiError(
      'invalid_parameter',
      `${name} must be an ISO 8601 UTC date or time (2026-11-26 or 2026-11-26T08:00:00Z), not ${JSON.stringify(value)}.`,
    );
  }
  return new Date(time).toISOString();
}

/** The filters of a read, each checked: a bad one is a 400 that names it. */
export function parseAuditQuery(
  query: Readonly<Record<string, string>>,
  limits: { readonly max: number; readonly default: number },
): AuditQuery {
  const { actor, action, cursor, limit: limitText } = query;
  if (action !== undefined && !isAuditAction(action)) {
    throw new ApiError('invalid_parameter', `action ${JSON.stringify(action)} is not an audit action.`);
  }
  if (actor !== undefined && (actor.length === 0 || actor.length > 400)) {
    throw new ApiError('invalid_parameter', 'actor must be 1 to 400 characters.');
  }
  const limit =
    limitText === undefined ? limits.default : /^[1-9]\d{0,3}$/.test(limitText) ? Number(limitText) : 0;
  if (!(limit >= PAGE_LIMIT.min && limit <= limits.max)) {
    throw new ApiError(
      'invalid_parameter',
      `limit must be an integer from ${PAGE_LIMIT.min} to ${limits.max}.`,
    );
  }
  const since = isoParameter('since', query.since);
  const until = isoParameter('until', query.until);
  return {
    limit,
    ...(actor === undefined ? {} : { actor }),
    ...(action === undefined ? {} : { action }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(cursor === undefined ? {} : { after: decodeAuditCursor(cursor) }),
  };
}

/** The audit routes' operations, over the log. */
export function auditOperations(auditLog: AuditLog) {
  return {
    listAuditLog: async (event: ConsoleEvent<unknown>): Promise<{ body: AuditLogPage }> => {
      const request = parseAuditQuery(event.query, { max: PAGE_LIMIT.max, default: PAGE_LIMIT.default });
      const page = await auditLog.read(event.project.name, request);
      return {
        body: { entries: page.entries, ...(page.next ? { cursor: encodeAuditCursor(page.next) } : {}) },
      };
    },
    exportAuditLog: async (
      event: ConsoleEvent<unknown>,
    ): Promise<{ body: string; headers: Record<string, string> }> => {
      const request = parseAuditQuery(event.query, { max: MAX_EXPORT_ENTRIES, default: MAX_EXPORT_ENTRIES });
      const page = await auditLog.read(event.project.name, request);
      const headers: Record<string, string> = {
        'Content-Type': JSON_LINES_TYPE,
        'Content-Disposition': `attachment; filename="audit-${event.project.name}.jsonl"`,
      };
      if (page.next) {
        const next = new URLSearchParams({ ...event.query, cursor: encodeAuditCursor(page.next) });
        headers.Link = `<${CONSOLE_API_PREFIX}/audit/export?${next.toString()}>; rel="next"`;
      }
      return { body: page.entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''), headers };
    },
  };
}

/** The outcome of an answer: success, or its Error body's code and status. */
function outcomeOf(answer: APIGatewayProxyResult): AuditOutcome {
  if (answer.statusCode < 400) return { result: 'success' };
  let code = 'unknown';
  try {
    code = String((JSON.parse(answer.body) as { code?: unknown }).code ?? code);
  } catch {
    // Not an Error body: the status says enough.
  }
  return { result: 'refused', code, status: answer.statusCode };
}

/** The first string among candidates. */
function firstText(...candidates: unknown[]): string | undefined {
  return candidates.find(
    (candidate): candidate is string => typeof candidate === 'string' && candidate !== '',
  );
}

/**
 * On what a call acted: its path's parameter (a domain's name, a key's, member's or token's id),
 * else what it made (a key's, a member's or a personal token's id), else what the body named.
 */
function targetOf(event: APIGatewayProxyEvent, answer: APIGatewayProxyResult): string | undefined {
  const path = event.pathParameters ?? {};
  let made: Record<string, unknown> = {};
  if (answer.statusCode < 400 && answer.body) {
    try {
      made = JSON.parse(answer.body) as Record<string, unknown>;
    } catch {
      made = {};
    }
  }
  const body = ((event as Partial<ConsoleEvent<unknown>>).jsonBody ?? {}) as Record<string, unknown>;
  const nested = (value: unknown, key: string) =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return firstText(
    ...Object.values(path),
    nested(made.key, 'keyId'),
    nested(made.personalToken, 'tokenId'),
    made.memberId,
    made.name,
    body.name,
    body.email,
  );
}

/**
 * Records one call of an audited route, whatever its outcome, when its caller was found: a
 * caller who proved no project (no token, a wrong one, an ended session) writes nothing, and
 * neither does a call the rate limiter refused (a flood would otherwise fill the log).
 * A failure to record is logged and never changes the answer: the change was made.
 */
export async function recordConsoleCall(
  auditLog: AuditLog,
  route: Pick<ConsoleRoute, 'audit'>,
  event: APIGatewayProxyEvent,
  answer: APIGatewayProxyResult,
  clock: () => number,
): Promise<void> {
  const access = consoleAccessOf(event);
  if (!route.audit || !access?.granted || answer.statusCode === 429) return;
  // A project's creation is its new project's first entry (issue 27); a person with no project
  // yet acts on none besides.
  const project =
    route.audit === 'project.create' || !('project' in access)
      ? createdProjectOf(answer)
      : access.project.name;
  if (project === undefined) return;
  const userAgent = headerValue(event.headers ?? {}, 'user-agent')?.slice(0, MAX_USER_AGENT);
  const clientAddress = clientAddressOf(event);
  const target = targetOf(event, answer)?.slice(0, MAX_TARGET);
  try {
    await auditLog.append({
      project,
      atMs: clock(),
      actor: actorOfAccess(access),
      action: route.audit,
      outcome: outcomeOf(answer),
      ...(target === undefined ? {} : { target }),
      ...(clientAddress === undefined ? {} : { clientAddress }),
      ...(userAgent === undefined ? {} : { userAgent }),
    });
  } catch (error) {
    logError('audit entry not recorded', error);
  }
}

/** Where a sign-in came from: its client's address and user agent. */
export interface SignInRequest {
  readonly clientAddress?: string;
  readonly userAgent?: string;
}

export function signInRequestOf(event: APIGatewayProxyEvent): SignInRequest {
  const userAgent = headerValue(event.headers ?? {}, 'user-agent')?.slice(0, MAX_USER_AGENT);
  const clientAddress = clientAddressOf(event);
  return {
    ...(clientAddress === undefined ? {} : { clientAddress }),
    ...(userAgent === undefined ? {} : { userAgent }),
  };
}

/**
 * Records a sign-in, or a failed one, in the project it was for. Only a caller who proved who
 * they are is recorded (a valid console token, a person the provider vouched for); a wrong
 * token or a forged return names no project it may write to.
 */
export async function recordSignIn(
  auditLog: AuditLog,
  clock: () => number,
  signIn: {
    readonly project: string;
    readonly actor: AuditActor;
    readonly refusal?: { readonly code: string; readonly status: number };
    readonly request: SignInRequest;
    /** What the sign-in did besides: accept an invitation (issue 27). @default 'sign-in' */
    readonly action?: 'sign-in' | 'invitation.accept';
  },
): Promise<void> {
  try {
    await auditLog.append({
      project: signIn.project,
      atMs: clock(),
      actor: signIn.actor,
      action: signIn.refusal ? 'sign-in.failed' : (signIn.action ?? 'sign-in'),
      outcome: signIn.refusal ? { result: 'refused', ...signIn.refusal } : { result: 'success' },
      ...signIn.request,
    });
  } catch (error) {
    logError('audit entry not recorded', error);
  }
}

/** A console token's sign-in, recorded where the token proved its project (a wrong one writes nothing). */
export async function recordTokenSignIn(
  auditLog: AuditLog,
  clock: () => number,
  signIn: SignIn,
  request: SignInRequest,
): Promise<void> {
  const actor = { kind: 'console-token' } as const;
  if (signIn.signedIn) {
    if (signIn.session.project !== undefined)
      await recordSignIn(auditLog, clock, { project: signIn.session.project, actor, request });
  } else if (
    signIn.project !== undefined &&
    (signIn.failure === 'console_token_retired' || signIn.failure === 'too_many_sessions')
  ) {
    const refusal = { code: signIn.failure, status: CONSOLE_ERROR_CATALOGUE[signIn.failure].status };
    await recordSignIn(auditLog, clock, { project: signIn.project, actor, refusal, request });
  }
}

/** The project a self-service create answered (`{"project": {"name": …}}`), if it made one. */
function createdProjectOf(answer: APIGatewayProxyResult): string | undefined {
  if (answer.statusCode !== 201) return undefined;
  try {
    const name = (JSON.parse(answer.body) as { project?: { name?: unknown } }).project?.name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}
