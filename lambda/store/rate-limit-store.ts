import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreUnavailableError } from '../core/errors';
import type { PlanLimits } from '../core/plans';
import type { CounterState } from '../core/rate-limit';
import { type CountOutcome, type CounterStore, WHOLE_CALLER } from '../core/rate-limiter';
import type { UsageReader } from '../core/usage-history';
import { isConditionalCheckFailure, storeCall, storeFailure } from './dynamodb-client';
import { readProjectUsage } from './usage-items';

/**
 * A counter item: `minute`, `minuteCount`, `dayCount`, `expiresAt`, and per subject (a key of
 * a project, or the keyless caller itself) that was ever banned, `banUntil_<subject>` and
 * `banCount_<subject>`: a ban refuses its subject only, while the counts are the caller's, all
 * its subjects together. Flat attributes, not a map: the counting condition reads one
 * top-level attribute, and a ban is one write that needs nothing to exist first. Names go
 * through ExpressionAttributeNames, so any subject is a name, never a document path.
 */
const NAMES = {
  '#minute': 'minute',
  '#minuteCount': 'minuteCount',
  '#dayCount': 'dayCount',
} as const;

const banUntilOf = (subject: string) => `banUntil_${subject}`;
const banCountOf = (subject: string) => `banCount_${subject}`;

const NOT_BANNED = '(attribute_not_exists(#banUntil) OR #banUntil <= :now)';

const namesFor = (subject: string) => ({ ...NAMES, '#banUntil': banUntilOf(subject) });

/** The counter as `subject` sees it: the shared counts, and its own ban. */
function toState(item: Record<string, unknown> | undefined, subject: string): CounterState | undefined {
  if (!item) return undefined;
  const until = item[banUntilOf(subject)];
  const count = item[banCountOf(subject)];
  return {
    minute: Number(item.minute ?? 0),
    minuteCount: Number(item.minuteCount ?? 0),
    dayCount: Number(item.dayCount ?? 0),
    ...(until !== undefined ? { bannedUntil: Number(until) } : {}),
    ...(count !== undefined ? { banCount: Number(count) } : {}),
  };
}

/** Rate-limit counters in DynamoDB: one item per caller per UTC day, updated atomically. */
export class RateLimitStore implements CounterStore, UsageReader {
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

  readUsage(project: string, days: readonly string[], hours: readonly number[]) {
    return readProjectUsage(this.client, this.tableName, project, days, hours);
  }

  /** Writes `subject`'s ban on the counter (creating the counter when it has none yet): one write. */
  async ban(
    counterId: string,
    subject: string,
    untilMs: number,
    banCount: number,
    expiresAtSeconds: number,
  ): Promise<void> {
    await storeCall(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { counterId },
          UpdateExpression:
            'SET #banUntil = :until, #banCount = :count, #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
          ExpressionAttributeNames: {
            '#banUntil': banUntilOf(subject),
            '#banCount': banCountOf(subject),
            '#expiresAt': 'expiresAt',
          },
          ExpressionAttributeValues: {
            ':until': untilMs,
            ':count': banCount,
            ':expiresAt': expiresAtSeconds,
          },
        }),
      ),
    );
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
