import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type PersonRef, personKey } from '../core/members';
import type { PersonalTokenRecord, PersonalTokenStore } from '../core/personal-tokens';
import { allPages, conditionalWrite, storeCall } from './dynamodb-client';
import { PERSONAL_TOKENS_TABLE } from './table-schema';

const [PROJECT_INDEX] = PERSONAL_TOKENS_TABLE.globalIndexes;

/** Kept this long after its expiry, so the console still lists it, then DynamoDB's TTL deletes it. */
const KEPT_AFTER_EXPIRY_S = 30 * 24 * 60 * 60;

/** The record of an item: its index key and TTL attribute left out. */
function recordOf(item: Record<string, unknown>): PersonalTokenRecord {
  const record = { ...item };
  delete record.holder;
  delete record.deleteAt;
  return record as unknown as PersonalTokenRecord;
}

/**
 * The only code that knows how personal access tokens are stored: one item per token, keyed by
 * its id, read consistently; a project's (or a member's) tokens are a Query of the project index.
 */
export class PersonalTokenRepository implements PersonalTokenStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(tokenId: string): Promise<PersonalTokenRecord | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { tokenId }, ConsistentRead: true })),
    );
    return Item ? recordOf(Item) : undefined;
  }

  async create(record: PersonalTokenRecord): Promise<void> {
    const item = {
      ...record,
      holder: `${personKey(record)}#${record.tokenId}`,
      deleteAt: Math.ceil(Date.parse(record.expiresAt) / 1000) + KEPT_AFTER_EXPIRY_S,
    };
    await storeCall(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(tokenId)',
        }),
      ),
    );
  }

  async delete(tokenId: string): Promise<void> {
    await storeCall(() =>
      this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { tokenId } })),
    );
  }

  async listOf(project: string, person?: PersonRef): Promise<PersonalTokenRecord[]> {
    const items = await allPages((startKey) =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: PROJECT_INDEX.indexName,
          KeyConditionExpression: person
            ? '#project = :project AND begins_with(#holder, :holder)'
            : '#project = :project',
          ExpressionAttributeNames: { '#project': 'project', ...(person ? { '#holder': 'holder' } : {}) },
          ExpressionAttributeValues: {
            ':project': project,
            ...(person ? { ':holder': `${personKey(person)}#` } : {}),
          },
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    return items.map(recordOf);
  }

  revoke(tokenId: string, revokedAt: string): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { tokenId },
          UpdateExpression: 'SET revokedAt = :at',
          ConditionExpression: 'attribute_exists(tokenId) AND attribute_not_exists(revokedAt)',
          ExpressionAttributeValues: { ':at': revokedAt },
        }),
      ),
    );
  }

  async touch(tokenId: string, lastUsedAt: string): Promise<void> {
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { tokenId },
          UpdateExpression: 'SET lastUsedAt = :at',
          ConditionExpression: 'attribute_exists(tokenId)',
          ExpressionAttributeValues: { ':at': lastUsedAt },
        }),
      ),
    );
  }
}
