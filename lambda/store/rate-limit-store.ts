import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreUnavailableError } from '../domain/errors';
import type { PlanLimits } from '../domain/plans';
import type { CounterState } from '../domain/rate-limit';
import { type CountOutcome, type CounterStore, WHOLE_CALLER } from '../domain/rate-limiter';
import { conditionalWrite, isConditionalCheckFailure, storeCall, storeFailure } from './dynamodb-client';

/**
 * A counter item: `minute`, `minuteCount`, `dayCount`, `expiresAt`, and `bans`, a map from
 * subject (a key of a project, or the keyless caller itself) to `{ until, count }`: a ban
 * refuses its subject only, while the counts are the caller's, all its subjects together.
 */
const NAMES = {
  '#minute': 'minute',
  '#minuteCount': 'minuteCount',
  '#dayCount': 'dayCount',
  '#bans': 'bans',
  '#subject': '',
  '#until': 'until',
} as const;

const NOT_BANNED = '(attribute_not_exists(#bans.#subject.#until) OR #bans.#subject.#until <= :now)';

const namesFor = (subject: string) => ({ ...NAMES, '#subject': subject });

/** The counter as `subject` sees it: the shared counts, and its own ban. */
function toState(item: Record<string, unknown> | undefined, subject: string): CounterState | undefined {
  if (!item) return undefined;
  const bans = (item.bans ?? {}) as Record<string, { until?: unknown; count?: unknown } | undefined>;
  const ban = Object.hasOwn(bans, subject) ? bans[subject] : undefined;
  return {
    minute: Number(item.minute ?? 0),
    minuteCount: Number(item.minuteCount ?? 0),
    dayCount: Number(item.dayCount ?? 0),
    ...(ban?.until !== undefined ? { bannedUntil: Number(ban.until) } : {}),
    ...(ban?.count !== undefined ? { banCount: Number(ban.count) } : {}),
  };
}

/** Rate-limit counters in DynamoDB: one item per caller per UTC day, updated atomically. */
export class RateLimitStore implements CounterStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  countInSameMinute(counterId: string, subject: string, minute: number, limits: PlanLimits, nowMs: number) {
    return this.conditionalUpdate(subject, {
      TableName: this.tableName,
      Key: { counterId },
      UpdateExpression: 'ADD #minuteCount :one, #dayCount :one',
      ConditionExpression: `#minute = :minute AND #minuteCount < :perMinute AND #dayCount < :perDay AND ${NOT_BANNED}`,
      ExpressionAttributeNames: namesFor(subject),
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
    subject: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
    expiresAtSeconds: number,
  ) {
    return this.conditionalUpdate(subject, {
      TableName: this.tableName,
      Key: { counterId },
      UpdateExpression:
        'SET #minute = :minute, #minuteCount = :one, #expiresAt = :expiresAt ADD #dayCount :one',
      ConditionExpression:
        '(attribute_not_exists(#minute) OR #minute < :minute) AND ' +
        `(attribute_not_exists(#dayCount) OR #dayCount < :perDay) AND ${NOT_BANNED}`,
      ExpressionAttributeNames: { ...namesFor(subject), '#expiresAt': 'expiresAt' },
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

  async read(counterId: string, subject: string = WHOLE_CALLER): Promise<CounterState | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { counterId }, ConsistentRead: true }),
      ),
    );
    return toState(Item, subject);
  }

  /**
   * Writes `subject`'s ban into the counter's `bans` map, which a nested SET needs to exist
   * first: the map is created whole when it is missing (a ban is rare: two writes at most).
   */
  async ban(
    counterId: string,
    subject: string,
    untilMs: number,
    banCount: number,
    expiresAtSeconds: number,
  ): Promise<void> {
    const entry = { until: untilMs, count: banCount };
    const common = {
      TableName: this.tableName,
      Key: { counterId },
      ExpressionAttributeValues: { ':expiresAt': expiresAtSeconds },
    };
    const expiresAt = '#expiresAt = if_not_exists(#expiresAt, :expiresAt)';
    for (let attempt = 0; attempt < 3; attempt++) {
      const intoMap = await conditionalWrite(() =>
        this.client.send(
          new UpdateCommand({
            ...common,
            UpdateExpression: `SET #bans.#subject = :entry, ${expiresAt}`,
            ConditionExpression: 'attribute_exists(#bans)',
            ExpressionAttributeNames: { '#bans': 'bans', '#subject': subject, '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ...common.ExpressionAttributeValues, ':entry': entry },
          }),
        ),
      );
      if (intoMap) return;
      const newMap = await conditionalWrite(() =>
        this.client.send(
          new UpdateCommand({
            ...common,
            UpdateExpression: `SET #bans = :bans, ${expiresAt}`,
            ConditionExpression: 'attribute_not_exists(#bans)',
            ExpressionAttributeNames: { '#bans': 'bans', '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ...common.ExpressionAttributeValues, ':bans': { [subject]: entry } },
          }),
        ),
      );
      if (newMap) return;
    }
    throw new StoreUnavailableError(new Error(`the bans of counter ${counterId} kept changing`));
  }

  private async conditionalUpdate(
    subject: string,
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
      const current = found ? toState(unmarshall(found), subject) : undefined;
      return current ? { counted: false, current } : { counted: false };
    }
    const state = toState(attributes, subject);
    // ALL_NEW returns the item an update wrote; a store that does not cannot be counted on.
    if (!state) throw new StoreUnavailableError(new Error('a counter update returned no counter'));
    return { counted: true, state };
  }
}
