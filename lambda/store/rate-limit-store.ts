import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreUnavailableError } from '../domain/errors';
import type { PlanLimits } from '../domain/plans';
import type { CounterState } from '../domain/rate-limit';
import type { CountOutcome, CounterStore } from '../domain/rate-limiter';
import { isConditionalCheckFailure, storeCall, storeFailure } from './dynamodb-client';

const NAMES = {
  '#minute': 'minute',
  '#minuteCount': 'minuteCount',
  '#dayCount': 'dayCount',
  '#bannedUntil': 'bannedUntil',
} as const;

const NOT_BANNED = '(attribute_not_exists(#bannedUntil) OR #bannedUntil <= :now)';

function toState(item: Record<string, unknown> | undefined): CounterState | undefined {
  if (!item) return undefined;
  return {
    minute: Number(item.minute ?? 0),
    minuteCount: Number(item.minuteCount ?? 0),
    dayCount: Number(item.dayCount ?? 0),
    ...(item.bannedUntil !== undefined ? { bannedUntil: Number(item.bannedUntil) } : {}),
    ...(item.banCount !== undefined ? { banCount: Number(item.banCount) } : {}),
  };
}

/** Rate-limit counters in DynamoDB: one item per caller per UTC day, updated atomically. */
export class RateLimitStore implements CounterStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  countInSameMinute(counterId: string, minute: number, limits: PlanLimits, nowMs: number) {
    return this.conditionalUpdate({
      TableName: this.tableName,
      Key: { counterId },
      UpdateExpression: 'ADD #minuteCount :one, #dayCount :one',
      ConditionExpression: `#minute = :minute AND #minuteCount < :perMinute AND #dayCount < :perDay AND ${NOT_BANNED}`,
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: {
        ':one': 1,
        ':minute': minute,
        ':perMinute': limits.perMinute,
        ':perDay': limits.perDay,
        ':now': nowMs,
      },
      ReturnValues: 'ALL_NEW',
    });
  }

  countInNewMinute(
    counterId: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
    expiresAtSeconds: number,
  ) {
    return this.conditionalUpdate({
      TableName: this.tableName,
      Key: { counterId },
      UpdateExpression:
        'SET #minute = :minute, #minuteCount = :one, #expiresAt = :expiresAt ADD #dayCount :one',
      ConditionExpression:
        '(attribute_not_exists(#minute) OR #minute < :minute) AND ' +
        `(attribute_not_exists(#dayCount) OR #dayCount < :perDay) AND ${NOT_BANNED}`,
      ExpressionAttributeNames: { ...NAMES, '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':minute': minute,
        ':perDay': limits.perDay,
        ':now': nowMs,
        ':expiresAt': expiresAtSeconds,
      },
      ReturnValues: 'ALL_NEW',
    });
  }

  async read(counterId: string): Promise<CounterState | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { counterId }, ConsistentRead: true }),
      ),
    );
    return toState(Item);
  }

  async ban(counterId: string, untilMs: number, expiresAtSeconds: number): Promise<number> {
    const { Attributes } = await storeCall(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { counterId },
          UpdateExpression:
            'SET #bannedUntil = :until, #expiresAt = if_not_exists(#expiresAt, :expiresAt) ADD #banCount :one',
          ExpressionAttributeNames: {
            '#bannedUntil': 'bannedUntil',
            '#expiresAt': 'expiresAt',
            '#banCount': 'banCount',
          },
          ExpressionAttributeValues: { ':until': untilMs, ':expiresAt': expiresAtSeconds, ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    );
    return Number(Attributes?.banCount ?? 1);
  }

  private async conditionalUpdate(
    input: ConstructorParameters<typeof UpdateCommand>[0],
  ): Promise<CountOutcome> {
    let attributes: Record<string, unknown> | undefined;
    try {
      ({ Attributes: attributes } = await this.client.send(
        // A failed condition answers with the counter it found: no read needed to see why.
        new UpdateCommand({ ...input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
      ));
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw storeFailure(error);
      // The document client does not unmarshall an error's item.
      const found = (error as { Item?: Record<string, AttributeValue> }).Item;
      const current = found ? toState(unmarshall(found)) : undefined;
      return current ? { counted: false, current } : { counted: false };
    }
    const state = toState(attributes);
    // ALL_NEW returns the item an update wrote; a store that does not cannot be counted on.
    if (!state) throw new StoreUnavailableError(new Error('a counter update returned no counter'));
    return { counted: true, state };
  }
}
