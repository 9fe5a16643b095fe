import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SelfServiceSlots } from '../core/self-service';
import { isConditionalCheckFailure, storeCall, storeFailure } from './dynamodb-client';

/**
 * The self-service start's counters (lambda/core/self-service.ts), items of the rate-limit table
 * keyed `self-service#…` beside its callers' counters: counters too, kept by the same function's
 * UpdateItem and GetItem, and with no `expiresAt`, so its TTL never deletes them. Each take is one
 * UpdateItem that adds 1 only while the count is under the cap, so creates at the same moment
 * never take more places than there are (DynamoDB, and the embedded store, apply each update to
 * an item alone).
 */
export class SelfServiceSlotStore implements SelfServiceSlots {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(counter: string, cap: number): Promise<number | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { counterId: counter },
          UpdateExpression: 'ADD taken :one',
          ConditionExpression: 'attribute_not_exists(taken) OR taken < :cap',
          ExpressionAttributeValues: { ':one': 1, ':cap': cap },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.taken ?? 0);
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw storeFailure(error);
    }
  }

  async giveBack(counter: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { counterId: counter },
          UpdateExpression: 'ADD taken :minusOne',
          ConditionExpression: 'taken > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      );
    } catch (error) {
      // Nothing taken: nothing to give back.
      if (!isConditionalCheckFailure(error)) throw storeFailure(error);
    }
  }

  async count(counter: string): Promise<number> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { counterId: counter }, ConsistentRead: true }),
      ),
    );
    return Number(Item?.taken ?? 0);
  }
}
