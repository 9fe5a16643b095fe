import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStore } from '../core/api-key';
import type { ProjectKeyStore, Revocation } from '../core/project-keys';
import {
  allInIndexPartition,
  allPages,
  conditionalWrite,
  isConditionalCheckFailure,
  storeCall,
  storeFailure,
} from './dynamodb-client';
import { API_KEYS_TABLE } from './table-schema';

const [PROJECT_INDEX] = API_KEYS_TABLE.globalIndexes;

/** A key written before projects: it had a plan of its own and no project. */
export interface UnassignedKey {
  readonly keyId: string;
  /** Its plan in the release before projects (`free`, …, `enterprise:<agreement>`). */
  readonly formerPlan?: string;
  readonly revokedAt?: string;
}

/** The only code that knows how API keys are stored. Records hold a hash of the secret, never the secret. */
export class ApiKeyRepository implements ApiKeyStore, ProjectKeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The key; `consistent` reads it as of the last write (after a refused conditional write). */
  async get(keyId: string, consistent = false): Promise<ApiKeyRecord | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { keyId }, ConsistentRead: consistent }),
      ),
    );
    return Item as ApiKeyRecord | undefined;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await storeCall(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: record,
          ConditionExpression: 'attribute_not_exists(keyId)',
        }),
      ),
    );
  }

  /** Every key, oldest first (an operator's listing: a full scan is fine at this scale). */
  async list(): Promise<ApiKeyRecord[]> {
    const records = (await allPages((startKey) =>
      this.client.send(new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey })),
    )) as unknown as ApiKeyRecord[];
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * Revokes the key if it is active (noting its replacement): a conditional write, so of
   * calls at the same time exactly one is told `revoked`; the others get the key as it is.
   */
  async revoke(keyId: string, revokedAt: Date, replacedBy?: string): Promise<Revocation> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyId },
          UpdateExpression: `SET revokedAt = :at${replacedBy ? ', replacedBy = :by' : ''}`,
          ConditionExpression: 'attribute_exists(keyId) AND attribute_not_exists(revokedAt)',
          ExpressionAttributeValues: {
            ':at': revokedAt.toISOString(),
            ...(replacedBy ? { ':by': replacedBy } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { revoked: true, record: Attributes as ApiKeyRecord };
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw storeFailure(error);
    }
    const record = await this.get(keyId, true);
    return record ? { revoked: false, record } : { revoked: false };
  }

  async discard(keyId: string): Promise<void> {
    await storeCall(() => this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { keyId } })));
  }

  /** A project's keys, oldest first (a Query on the project index: it reads only that project's keys). */
  async listByProject(project: string): Promise<ApiKeyRecord[]> {
    const records = (await allInIndexPartition(
      this.client,
      this.tableName,
      PROJECT_INDEX,
      project,
    )) as unknown as ApiKeyRecord[];
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Moves the key if it is active and in project `from` (none: a key from before projects). */
  async move(keyId: string, from: string | undefined, to: string): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyId },
          UpdateExpression: 'SET #project = :to',
          ConditionExpression: `attribute_exists(keyId) AND attribute_not_exists(revokedAt) AND ${
            from === undefined ? 'attribute_not_exists(#project)' : '#project = :from'
          }`,
          ExpressionAttributeNames: { '#project': 'project' },
          ExpressionAttributeValues: { ':to': to, ...(from === undefined ? {} : { ':from': from }) },
        }),
      ),
    );
  }

  /** Keys written before projects (no project), for the upgrade. */
  async listUnassigned(): Promise<UnassignedKey[]> {
    const items = await allPages((startKey) =>
      this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: 'attribute_not_exists(#project)',
          ExpressionAttributeNames: { '#project': 'project' },
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    return items.map((item) => ({
      keyId: item.keyId as string,
      ...(typeof item.plan === 'string' ? { formerPlan: item.plan } : {}),
      ...(typeof item.revokedAt === 'string' ? { revokedAt: item.revokedAt } : {}),
    }));
  }

  /** Puts a key written before projects into a project, dropping its former plan and usage id; false when it has a project. */
  async assignProject(keyId: string, project: string): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyId },
          UpdateExpression: 'SET #project = :project REMOVE #plan, usageId',
          ConditionExpression: 'attribute_exists(keyId) AND attribute_not_exists(#project)',
          ExpressionAttributeNames: { '#project': 'project', '#plan': 'plan' },
          ExpressionAttributeValues: { ':project': project },
        }),
      ),
    );
  }
}
