import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../core/console-session';
import { allPages, conditionalWrite, storeCall } from './dynamodb-client';
import { CONSOLE_SESSIONS_TABLE } from './table-schema';

const [PROJECT_INDEX] = CONSOLE_SESSIONS_TABLE.globalIndexes;

/**
 * The only code that knows how console sessions are stored: one item per session, keyed by the
 * hash of its secret. DynamoDB's TTL deletes items after `expiresAt`; the domain treats a
 * session as ended from then on, before the deletion comes (and in local mode, which has no TTL).
 */
export class ConsoleSessionRepository implements ConsoleSessionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(sessionHash: string): Promise<ConsoleSessionRecord | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { sessionHash } })),
    );
    return Item as ConsoleSessionRecord | undefined;
  }

  async put(record: ConsoleSessionRecord): Promise<void> {
    await storeCall(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: record,
          ConditionExpression: 'attribute_not_exists(sessionHash)',
        }),
      ),
    );
  }

  async touch(sessionHash: string, lastSeenAt: number, expiresAt: number): Promise<void> {
    // Never recreates a session signed out meanwhile.
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { sessionHash },
          UpdateExpression: 'SET lastSeenAt = :seen, expiresAt = :expires',
          ConditionExpression: 'attribute_exists(sessionHash)',
          ExpressionAttributeValues: { ':seen': lastSeenAt, ':expires': expiresAt },
        }),
      ),
    );
  }

  /** The project's sessions that expire after `afterSeconds` (a Query on the project index). */
  async listUnexpired(project: string, afterSeconds: number): Promise<ConsoleSessionRecord[]> {
    const items = await allPages((startKey) =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: PROJECT_INDEX.indexName,
          KeyConditionExpression: '#project = :project AND expiresAt > :after',
          ExpressionAttributeNames: { '#project': 'project' },
          ExpressionAttributeValues: { ':project': project, ':after': afterSeconds },
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    return items as unknown as ConsoleSessionRecord[];
  }

  async setProject(sessionHash: string, project: string): Promise<void> {
    // Never recreates a session signed out meanwhile.
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { sessionHash },
          UpdateExpression: 'SET #project = :project',
          ConditionExpression: 'attribute_exists(sessionHash)',
          ExpressionAttributeNames: { '#project': 'project' },
          ExpressionAttributeValues: { ':project': project },
        }),
      ),
    );
  }

  async delete(sessionHash: string): Promise<void> {
    await storeCall(() =>
      this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { sessionHash } })),
    );
  }
}
