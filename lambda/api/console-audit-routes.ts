import type { AuditEntry } from '../core/audit';
import type { ConsoleRoute } from './console-routes';

/**
 * The console's routes of the audit log (issue 28): a page of a project's entries, newest
 * first, and the same entries as JSON Lines for export. Declared apart from console-routes.ts,
 * which spreads them into its one route table.
 */

/** A route's answer type for the compiler (as console-routes.ts's `answers`). */
function answers<Body>(): Body | undefined {
  return undefined;
}

/** The filters both routes take: who, what, from and until when, and where to go on from. */
export const AUDIT_QUERY_PARAMETERS = ['actor', 'action', 'since', 'until', 'cursor', 'limit'] as const;

/** The export's media type: one JSON entry per line (jsonlines.org). */
export const JSON_LINES_TYPE = 'application/jsonl; charset=utf-8';

/** A page of the audit log: its entries, newest first, and the cursor of the next page. */
export interface AuditLogPage {
  readonly entries: readonly AuditEntry[];
  /** Pass as `?cursor=` for the next (older) page; absent on the last. */
  readonly cursor?: string;
}

export const AUDIT_ROUTES = [
  {
    operationId: 'listAuditLog',
    method: 'GET',
    path: '/audit',
    summary:
      'The audit log, newest first: who acted, when, from where, what on what, the outcome. Filters `actor`, `action`, `since`, `until`; `limit`, `cursor` (doc/console.md#audit-log).',
    successStatus: 200,
    action: 'readAuditLog',
    queryParameters: AUDIT_QUERY_PARAMETERS,
    errors: ['invalid_parameter', 'invalid_cursor'],
    answer: answers<AuditLogPage>(),
  },
  {
    operationId: 'exportAuditLog',
    method: 'GET',
    path: '/audit/export',
    summary:
      'The audit log as JSON Lines (`application/jsonl`), with the same filters: up to 1000 entries a call; `Link: <…>; rel="next"` names the rest.',
    successStatus: 200,
    action: 'readAuditLog',
    queryParameters: AUDIT_QUERY_PARAMETERS,
    errors: ['invalid_parameter', 'invalid_cursor'],
    answer: answers<string>(),
  },
] as const satisfies readonly ConsoleRoute<string>[];
