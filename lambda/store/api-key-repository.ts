import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStore } from '../domain/api-key';
import { allInIndexPartition, allPages, conditionalWrite, storeCall } from './dynamodb-client';
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
export class ApiKeyRepository implements ApiKeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { keyId } })),
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

  /** Marks a key revoked; false when no such key exists. */
  async revoke(keyId: string, revokedAt: Date): Promise<boolean> {
    return this.update(keyId, 'SET revokedAt = if_not_exists(revokedAt, :at)', {
      ':at': revokedAt.toISOString(),
    });
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

  /** Moves a key to another project; false when no such key exists. */
  async move(keyId: string, project: string): Promise<boolean> {
    return this.update(keyId, 'SET #project = :project', { ':project': project }, { '#project': 'project' });
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

  private async update(
    keyId: string,
    expression: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyId },
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(keyId)',
          ExpressionAttributeValues: values,
          ...(names ? { ExpressionAttributeNames: names } : {}),
        }),
      ),
    );
  }
}
