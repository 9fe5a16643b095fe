import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  AUDIT_RETENTION_DAYS,
  type AuditEntry,
  type AuditLog,
  type AuditPage,
  type AuditQuery,
  matchesActor,
  type NewAuditEntry,
} from '../core/audit';
import { conditionalWrite, storeCall } from './dynamodb-client';

/** Reads of a filtered page stop after this many Query calls (each up to 1 MB), with a cursor. */
const MAX_QUERIES_PER_PAGE = 10;

/**
 * Entries of one millisecond sort in the order this process made them: the suffix begins with
 * a counter (then random bytes, so two processes never collide). Across processes entries of
 * one millisecond were concurrent, and either order is true.
 */
let sequence = 0;

function entrySuffix(): string {
  sequence = (sequence + 1) % 0x1_0000_0000;
  return `${sequence.toString(16).padStart(8, '0')}${randomBytes(4).toString('hex')}`;
}

/** An entry item: the entry with its TTL attribute (epoch seconds). */
type AuditItem = AuditEntry & { readonly expiresAt: number };

function entryOf(item: Record<string, unknown>): AuditEntry {
  const entry: Record<string, unknown> = { ...item };
  // The TTL is the store's, not the entry's.
  delete entry.expiresAt;
  return entry as unknown as AuditEntry;
}

/**
 * The only code that knows how audit entries are stored: one item per entry in its project's
 * partition, keyed by `<ISO time>#<random suffix>`. An entry is put only where none is (the
 * suffix makes a collision a retry, never an overwrite); nothing here updates or deletes one.
 */
export class AuditLogRepository implements AuditLog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async append({ atMs, ...fields }: NewAuditEntry): Promise<AuditEntry> {
    const at = new Date(atMs).toISOString();
    for (;;) {
      const entry: AuditEntry = { ...fields, at, entryId: `${at}#${entrySuffix()}` };
      const item: AuditItem = {
        ...entry,
        expiresAt: Math.ceil(atMs / 1000) + AUDIT_RETENTION_DAYS * 86_400,
      };
      const written = await conditionalWrite(() =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: item,
            ConditionExpression: 'attribute_not_exists(entryId)',
          }),
        ),
      );
      if (written) return entry;
    }
  }

  async read(project: string, query: AuditQuery): Promise<AuditPage> {
    const bounds = {
      ':since': query.since ?? '0',
      // After any suffix of the last millisecond of `until`.
      ':until': `${query.until ?? '9'}~`,
    };
    const names: Record<string, string> = { '#project': 'project', '#entryId': 'entryId' };
    const values: Record<string, unknown> = { ':project': project, ...bounds };
    let filter: string | undefined;
    if (query.action !== undefined) {
      names['#action'] = 'action';
      values[':action'] = query.action;
      filter = '#action = :action';
    }
    const entries: AuditEntry[] = [];
    let startKey: Record<string, unknown> | undefined =
      query.after === undefined ? undefined : { project, entryId: query.after };
    for (let queries = 0; queries < MAX_QUERIES_PER_PAGE; queries += 1) {
      const page = await storeCall(() =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: '#project = :project AND #entryId BETWEEN :since AND :until',
            ...(filter ? { FilterExpression: filter } : {}),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ScanIndexForward: false,
            Limit: query.limit + 1,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      for (const item of page.Items ?? []) {
        const entry = entryOf(item);
        if (query.actor !== undefined && !matchesActor(entry.actor, query.actor)) continue;
        entries.push(entry);
        if (entries.length > query.limit) {
          const shown = entries.slice(0, query.limit);
          return { entries: shown, next: shown[shown.length - 1]?.entryId };
        }
      }
      startKey = page.LastEvaluatedKey;
      if (!startKey) return { entries };
    }
    // Many entries filtered out: answer what was found and where to go on from.
    return { entries, next: String(startKey?.entryId) };
  }
}
