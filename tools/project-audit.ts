import { actorText, type AuditEntry } from '../lambda/core/audit';
import type { EnvironmentName } from '../lib/config/environments';
import { AuditLogRepository } from '../lambda/store/audit-log-repository';
import { connectAuditLog } from './audit-trail';
import { UsageError } from './failures';
import type { ProjectAdmin } from './project-admin';
import type { SubcommandIo } from './stage';

/**
 * `npm run projects -- audit <project> [--since …] [--json]`: a project's audit log, newest
 * first, read as the console's Audit page reads it (a Query of its partition), from the local
 * store or a stage's table.
 */

/** The projects tool's options and command for the audit log, declared here and merged into its spec. */
export const AUDIT_OPTIONS = {
  since: {
    type: 'string',
    value: 'TIME',
    description: 'With audit: only entries from this ISO 8601 date or time on (e.g. 2026-11-26).',
  },
} as const;

export const AUDIT_COMMAND = {
  name: 'audit',
  operands: ['name'],
  options: ['since', 'json'],
  summary: [
    "Show a project's audit log, newest first: who acted, when, from where, what on what,",
    'and the outcome (doc/audit.md). --json prints one entry per line (JSON Lines).',
  ].join('\n'),
} as const;

/** Read per Query page; the tool reads every page. */
const PAGE = 100;

export function parseSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new UsageError(
      `--since ${JSON.stringify(value)} is not an ISO 8601 UTC date or time (2026-11-26 or 2026-11-26T08:00:00Z).`,
    );
  }
  return new Date(time).toISOString();
}

// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text a caller chose (a target from a refused call's path, a token's name), made safe for a
 * terminal: control characters (C0, DEL and C1) as `\uXXXX`, so an entry stays one line and cannot move the
 * cursor or forge the lines around it.
 */
function printable(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function entryLine(entry: AuditEntry): string {
  const outcome = entry.outcome.result === 'success' ? 'success' : `refused ${entry.outcome.code}`;
  const target = entry.target ? ` ${printable(entry.target)}` : '';
  const from = entry.clientAddress ? `  from ${printable(entry.clientAddress)}` : '';
  return `${entry.at}  ${entry.action.padEnd(16)}${target}  ${outcome}  by ${printable(actorText(entry.actor))}${from}`;
}

/** The projects tool's `audit` command: checks its options now, and reads once connected. */
export function auditCommand(
  name: string,
  values: { readonly since?: string; readonly json?: boolean },
  stage: EnvironmentName | undefined,
  io: SubcommandIo,
): (admin: ProjectAdmin) => Promise<void> {
  const since = parseSince(values.since);
  return async (admin) => {
    // An unknown project fails here, as every command of the tool does.
    await admin.show(name);
    const table = await connectAuditLog({ ...io, ...(stage ? { stage } : {}) });
    try {
      const log = new AuditLogRepository(table.documents, table.tableName);
      let after: string | undefined;
      let count = 0;
      do {
        const page = await log.read(name, {
          limit: PAGE,
          ...(since ? { since } : {}),
          ...(after ? { after } : {}),
        });
        for (const entry of page.entries) io.out(values.json ? JSON.stringify(entry) : entryLine(entry));
        count += page.entries.length;
        after = page.next;
      } while (after);
      if (count === 0 && !values.json)
        io.out(`Project ${name} has no audit entries${since ? ` since ${since}` : ''}.`);
    } finally {
      table.close();
    }
  };
}

/** What a projects command acted on, for its audit entry: the project, and the plan or origins set. */
export function projectsAuditSubject(command: string, [name = '', ...rest]: readonly string[]) {
  return {
    project: name,
    target: command === 'set-plan' || command === 'set-origins' ? rest.join(' ') : name,
  };
}
