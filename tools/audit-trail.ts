import { userInfo } from 'node:os';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditAction, AuditOutcome } from '../lambda/core/audit';
import { now } from '../lambda/shared/clock';
import { AuditLogRepository } from '../lambda/store/audit-log-repository';
import { STACK_OUTPUTS } from '../lib/animal-store-stack';
import type { EnvironmentName } from '../lib/config/environments';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { reason, Refusal, UsageError } from './failures';
import { openLocalTable, toolStoreEndpoint } from './local-store';
import { connectStageTable, type StageClients } from './stage';

/**
 * The platform tools' audit trail (issue 28): a command whose declaration names an `audit`
 * action is recorded, once it has run, in its project's audit log as the platform engineer's
 * (the AWS caller identity with `--stage`, the OS user locally), with its outcome. One helper
 * for every tool: a tool only says which project and target a command acted on.
 */

/** The local audit table's variable, as npm start reads it. */
export const AUDIT_LOG_VARIABLE = 'AUDIT_LOG_TABLE_NAME';

/** Where a tool runs and records: the local store, or a stage (with clients a test may give). */
export interface AuditTrailIo {
  readonly stage?: EnvironmentName;
  readonly endpoint?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly stageClients?: StageClients & { readonly sts?: STSClient };
  /** Epoch milliseconds. @default the service clock */
  readonly clock?: () => number;
  /** Where a failure to record is told (stderr): the command's own outcome stands. */
  readonly note?: (line: string) => void;
}

/** The audit table: the local store's, or a stage's from its stack outputs. */
export async function connectAuditLog(
  io: AuditTrailIo,
): Promise<{ documents: DynamoDBDocumentClient; tableName: string; close: () => void }> {
  if (io.stage) return connectStageTable(io.stage, STACK_OUTPUTS.auditLogTable, io.stageClients);
  const tableName = (io.env ?? process.env)[AUDIT_LOG_VARIABLE] || LOCAL_TABLE_NAMES.auditLog;
  const documents = await openLocalTable(io.endpoint ?? toolStoreEndpoint(io.env), {
    tableName,
    variable: AUDIT_LOG_VARIABLE,
  });
  return { documents, tableName, close: () => documents.destroy() };
}

/** Who the platform engineer is: the AWS caller identity's ARN with a stage, else the OS user. */
export async function platformIdentity(io: AuditTrailIo): Promise<string> {
  if (!io.stage) return `local:${userInfo().username}`;
  const sts = io.stageClients?.sts ?? new STSClient({});
  try {
    const { Arn } = await sts.send(new GetCallerIdentityCommand({}));
    return Arn ?? 'unknown AWS caller';
  } finally {
    if (!io.stageClients?.sts) sts.destroy();
  }
}

function outcomeOf(error: unknown): AuditOutcome {
  if (error === undefined) return { result: 'success' };
  // A tool has no HTTP status: its exit code stands in (1: refused or failed).
  return { result: 'refused', code: error instanceof Refusal ? 'tool_refused' : 'tool_failed', status: 1 };
}

/** What an audited command acted on: its project, and the thing in it. */
export interface AuditedSubject {
  readonly project: string;
  readonly target?: string;
}

/**
 * Runs a command and records it when its declaration names an action. `subject` is asked after
 * the run (a key's project is known only once it is read); none, or a usage error, records nothing.
 */
export async function withAuditTrail<T>(
  spec: { readonly commands: readonly { readonly name: string; readonly audit?: AuditAction }[] },
  name: string,
  io: AuditTrailIo,
  subject: () => Promise<AuditedSubject | undefined> | AuditedSubject | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const command = spec.commands.find((candidate) => candidate.name === name);
  if (!command?.audit) return run();
  const action = command.audit;
  let failure: unknown;
  let result: T | undefined;
  try {
    result = await run();
  } catch (error) {
    failure = error ?? new Error('failed');
  }
  if (!(failure instanceof UsageError)) {
    const about = await Promise.resolve()
      .then(subject)
      .catch(() => undefined);
    if (about?.project) {
      try {
        await record(io, {
          project: about.project,
          action,
          outcome: outcomeOf(failure),
          target: about.target,
        });
      } catch (error) {
        // Done is done: a trail that cannot be written is told, and the command's outcome stands.
        (io.note ?? ((line) => process.stderr.write(`${line}\n`)))(
          `The audit entry of ${action} on project ${about.project} could not be recorded: ${reason(error)}`,
        );
      }
    }
  }
  if (failure !== undefined) throw failure;
  return result as T;
}

async function record(
  io: AuditTrailIo,
  entry: { project: string; action: AuditAction; outcome: AuditOutcome; target?: string | undefined },
): Promise<void> {
  const table = await connectAuditLog(io);
  try {
    await new AuditLogRepository(table.documents, table.tableName).append({
      project: entry.project,
      atMs: (io.clock ?? now)(),
      actor: { kind: 'platform-engineer', identity: await platformIdentity(io) },
      action: entry.action,
      outcome: entry.outcome,
      ...(entry.target === undefined ? {} : { target: entry.target }),
    });
  } finally {
    table.close();
  }
}
