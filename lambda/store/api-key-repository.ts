import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { PlanName } from '../api/plans';
import type { ApiKeyRecord } from '../domain/api-key';
import { isConditionalCheckFailure, StoreUnavailableError, storeCall } from './dynamodb-client';

/** The only code that knows how API keys are stored. Records hold a hash of the secret, never the secret. */
export class ApiKeyRepository {
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
    const records: ApiKeyRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await storeCall(() =>
        this.client.send(new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey })),
      );
      records.push(...((page.Items ?? []) as ApiKeyRecord[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Marks a key revoked; false when no such key exists. */
  async revoke(keyId: string, revokedAt: Date): Promise<boolean> {
    return this.update(keyId, 'SET revokedAt = if_not_exists(revokedAt, :at)', {
      ':at': revokedAt.toISOString(),
    });
  }

  async setPlan(keyId: string, plan: PlanName): Promise<boolean> {
    return this.update(keyId, 'SET #plan = :plan', { ':plan': plan }, { '#plan': 'plan' });
  }

  private async update(
    keyId: string,
    expression: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyId },
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(keyId)',
          ExpressionAttributeValues: values,
          ...(names ? { ExpressionAttributeNames: names } : {}),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw new StoreUnavailableError(error);
    }
  }
}
