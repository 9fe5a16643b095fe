import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { USAGE_OPERATIONS } from '../lambda/api/routes';
import { type ProjectRecord, projectLimits } from '../lambda/core/project';
import { readUsageTop, TOP_KEPT } from '../lambda/core/usage-top';
import { MAX_HISTORY_DAYS, type UsageBucket, usageHistory } from '../lambda/core/usage-history';
import { now } from '../lambda/shared/clock';
import { UsageHistoryStore } from '../lambda/store/usage-history-store';
import { UsageTopStore } from '../lambda/store/usage-top-store';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { STACK_OUTPUTS } from '../lib/animal-store-stack';
import type { EnvironmentName } from '../lib/config/environments';
import { UsageError } from './failures';
import { DEFAULT_TOP, parseTopCount, parseTopDay, usageTopReport } from './project-usage-top';
import type { ProjectAdmin } from './project-admin';
import { openLocalTable, toolStoreEndpoint } from './local-store';
import { connectStageTable, type StageClients, type SubcommandIo } from './stage';

/**
 * `npm run projects -- usage <project> [--days N] [--json]`: a project's calls per operation, the
 * last 24 UTC hours and N UTC days, read as the console's Usage page reads them (one request to
 * the rate-limit table) from the local store or a stage's table.
 */

/** The projects tool's options and command for usage, declared here and merged into its spec. */
export const USAGE_OPTIONS = {
  days: {
    type: 'string',
    value: 'N',
    description: `With usage <project>: how many UTC days to show, 1 to ${MAX_HISTORY_DAYS} (default 30).`,
  },
  top: {
    type: 'boolean',
    description: [
      `With usage: list the N projects (default ${DEFAULT_TOP}, at most ${TOP_KEPT}) that used the most on a`,
      'UTC day, by admitted requests and by refusals: usage --top [N].',
    ].join('\n'),
  },
  day: {
    type: 'string',
    value: 'YYYY-MM-DD',
    description: `With usage --top: the UTC day, today or up to ${MAX_HISTORY_DAYS} days before (default today).`,
  },
} as const;

export const USAGE_COMMAND = {
  name: 'usage',
  operands: ['project|N?'],
  options: ['days', 'top', 'day', 'json'],
  summary: [
    "usage <project>: a project's API calls per operation, the last 24 UTC hours and the last days.",
    'usage --top [N]: the projects that used the most on a UTC day, from the `top` item the daily job',
    'writes for each finished day (saying how old it is), or counted now for today or a day without one.',
    'Admitted counts are exact; refused ones are lower bounds (doc/limits.md).',
  ].join('\n'),
} as const;

/** The local rate-limit table's variable, as npm start reads it. */
const RATE_LIMITS_VARIABLE = 'RATE_LIMITS_TABLE_NAME';

export function parseDays(value: string | undefined): number {
  if (value === undefined) return 30;
  const days = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(days >= 1 && days <= MAX_HISTORY_DAYS)) {
    throw new UsageError(
      `--days ${JSON.stringify(value)} is not a whole number from 1 to ${MAX_HISTORY_DAYS}.`,
    );
  }
  return days;
}

function total(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

function row(label: string, bucket: UsageBucket, operations: readonly string[]): string {
  const cells = operations.map((operation) => String(bucket.admitted[operation] ?? 0).padStart(10));
  return `${label}  ${cells.join('')}${String(total(bucket.admitted)).padStart(10)}${String(total(bucket.refused)).padStart(10)}`;
}

/** The rate-limit table, local or of a stage, as npm start and the stack name it. */
export async function openRateLimitsTable({
  stage,
  endpoint,
  env = process.env,
  stageClients,
}: {
  stage?: EnvironmentName | undefined;
  endpoint?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  stageClients?: StageClients | undefined;
}): Promise<{ documents: DynamoDBDocumentClient; tableName: string; close: () => void }> {
  if (stage) return connectStageTable(stage, STACK_OUTPUTS.rateLimitsTable, stageClients);
  const tableName = env[RATE_LIMITS_VARIABLE] || LOCAL_TABLE_NAMES.rateLimits;
  const documents = await openLocalTable(endpoint ?? toolStoreEndpoint(), {
    tableName,
    variable: RATE_LIMITS_VARIABLE,
  });
  return { documents, tableName, close: () => documents.destroy() };
}

/** Reads and prints a project's usage; `project` is its record (read by the caller, so unknown names fail there). */
export async function printProjectUsage({
  project,
  days,
  json,
  stage,
  endpoint,
  env = process.env,
  stageClients,
  out,
  nowMs = now(),
}: {
  project: ProjectRecord;
  days: number;
  json: boolean;
  stage?: EnvironmentName;
  endpoint?: string;
  env?: NodeJS.ProcessEnv;
  stageClients?: StageClients;
  out: (line: string) => void;
  nowMs?: number;
}): Promise<void> {
  const table = await openRateLimitsTable({ stage, endpoint, env, stageClients });
  try {
    const reader = new UsageHistoryStore(table.documents, table.tableName);
    const history = await usageHistory(project.name, projectLimits(project), reader, nowMs, {
      operations: USAGE_OPERATIONS,
      days,
    });
    if (json) {
      out(JSON.stringify({ project: project.name, ...history }));
      return;
    }
    const { operations } = history;
    const header = `${operations.map((operation) => operation.slice(0, 9).padStart(10)).join('')}${'admitted'.padStart(10)}${'refused'.padStart(10)}`;
    out(
      `Project ${project.name}: ${history.limits.perMinute} per minute, ${history.limits.perDay} per day; read ${history.readAt}.`,
    );
    out('Admitted per operation (exact); refused are lower bounds. Times are UTC.');
    out(`Hour (UTC)        ${header}`);
    for (const hour of history.hours) out(row(hour.start.slice(0, 16).replace('T', ' '), hour, operations));
    out(`Day (UTC)   ${header}`);
    for (const day of history.days) out(row(day.start.slice(0, 10), day, operations));
  } finally {
    table.close();
  }
}

/** The projects tool's `usage` command: checks its options now, and reads once connected. */
export function usageCommand(
  operand: string | undefined,
  values: {
    readonly days?: string;
    readonly top?: boolean;
    readonly day?: string;
    readonly json?: boolean;
  },
  stage: EnvironmentName | undefined,
  io: SubcommandIo,
): (admin: ProjectAdmin) => Promise<void> {
  const connection = {
    ...(stage ? { stage } : {}),
    ...(io.endpoint ? { endpoint: io.endpoint } : {}),
    ...(io.env ? { env: io.env } : {}),
    ...(io.stageClients ? { stageClients: io.stageClients } : {}),
  };
  if (values.top) {
    if (values.days !== undefined) {
      throw new UsageError(
        "--days is for one project's usage; with --top, name a day with --day YYYY-MM-DD.",
      );
    }
    const nowMs = now();
    const count = parseTopCount(operand);
    const day = parseTopDay(values.day, nowMs);
    return async (admin) => {
      const table = await openRateLimitsTable(connection);
      try {
        const names = async () => (await admin.list()).map((project) => project.name);
        const reading = await readUsageTop(
          new UsageTopStore(table.documents, table.tableName, names),
          day,
          nowMs,
        );
        for (const line of usageTopReport(reading, count, values.json === true)) io.out(line);
      } finally {
        table.close();
      }
    };
  }
  if (values.day !== undefined)
    throw new UsageError('--day goes with --top: usage --top [N] --day YYYY-MM-DD.');
  if (operand === undefined) {
    throw new UsageError(
      'usage needs a project, or --top: usage <project> [--days N], or usage --top [N] [--day YYYY-MM-DD].',
    );
  }
  const days = parseDays(values.days);
  return async (admin) =>
    printProjectUsage({
      project: (await admin.show(operand)).project,
      days,
      json: values.json === true,
      out: io.out,
      ...connection,
    });
}
