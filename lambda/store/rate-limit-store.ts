import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreUnavailableError } from '../core/errors';
import type { PlanLimits } from '../core/plans';
import type { CounterState } from '../core/rate-limit';
import { type CountOutcome, type CounterStore, WHOLE_CALLER } from '../core/rate-limiter';
import type { UsageWrite, UsageWriter } from '../core/usage-counting';
import type { HourUsage } from '../core/usage-history';
import { isConditionalCheckFailure, storeCall, storeFailure } from './dynamodb-client';
import {
  finishedHourOf,
  HOUR_ATTRIBUTE,
  hourItemId,
  refusedAtHourAttribute,
  updateExpression,
  usageAttribute,
  usageClauses,
} from './usage-items';

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
    ...(typeof item[HOUR_ATTRIBUTE] === 'number' ? { hour: item[HOUR_ATTRIBUTE] } : {}),
  };
}

/** Rate-limit counters in DynamoDB: one item per caller per UTC day, updated atomically. */
export class RateLimitStore implements CounterStore, UsageWriter {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  countInSameMinute(
    counterId: string,
    subject: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
    usage?: UsageWrite,
  ) {
    // Within a minute the counter is within its hour: usage is only ADDed.
    const counts = usage ? usageClauses({ ...usage, newHour: false }) : undefined;
    return this.conditionalUpdate(subject, {
      TableName: this.tableName,
      Key: { counterId },
      UpdateExpression: updateExpression({
        set: [],
        remove: [],
        add: ['#minuteCount :one', '#dayCount :one', ...(counts?.add ?? [])],
      }),
      ConditionExpression: `#minute = :minute AND #minuteCount < :perMinute AND #dayCount < :perDay AND ${NOT_BANNED}`,
      ExpressionAttributeNames: { ...namesFor(subject), ...counts?.names },
      ExpressionAttributeValues: {
        ':one': 1,
        ':minute': minute,
        ':perMinute': limits.perMinute,
        ':perDay': limits.perDay,
        ':now': nowMs,
        ...counts?.values,
      },
      ReturnValues: 'ALL_NEW',
    });
  }

  /**
   * With usage of a new hour, the condition is that the counter is in an earlier hour (or has
   * none), and the write answers the item as it was (ALL_OLD), whose finished hour the limiter
   * moves to its hour item; the counter after it is known from that and what the write did.
   */
  async countInNewMinute(
    counterId: string,
    subject: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
    expiresAtSeconds: number,
    usage?: UsageWrite,
  ): Promise<CountOutcome> {
    const counts = usage ? usageClauses(usage) : undefined;
    const hourStart = usage ? usage.hour * 60 : undefined;
    const minuteCondition = !usage
      ? '(attribute_not_exists(#minute) OR #minute < :minute)'
      : usage.newHour
        ? '(attribute_not_exists(#minute) OR #minute < :hourStart)'
        : '(#minute < :minute AND #minute >= :hourStart)';
    const input = {
      TableName: this.tableName,
      Key: { counterId },
      UpdateExpression: updateExpression({
        set: ['#minute = :minute', '#minuteCount = :one', '#expiresAt = :expiresAt', ...(counts?.set ?? [])],
        remove: counts?.remove ?? [],
        add: ['#dayCount :one', ...(counts?.add ?? [])],
      }),
      ConditionExpression: `${minuteCondition} AND (attribute_not_exists(#dayCount) OR #dayCount < :perDay) AND ${NOT_BANNED}`,
      ExpressionAttributeNames: { ...namesFor(subject), '#expiresAt': 'expiresAt', ...counts?.names },
      ExpressionAttributeValues: {
        ':one': 1,
        ':minute': minute,
        ':perDay': limits.perDay,
        ':now': nowMs,
        ':expiresAt': expiresAtSeconds,
        ...(hourStart !== undefined ? { ':hourStart': hourStart } : {}),
        ...counts?.values,
      },
    };
    if (!usage?.newHour) return this.conditionalUpdate(subject, { ...input, ReturnValues: 'ALL_NEW' });
    const outcome = await this.conditionalUpdate(subject, { ...input, ReturnValues: 'ALL_OLD' }, (old) => {
      const before = toState(old, subject);
      return {
        ...(before?.bannedUntil !== undefined ? { bannedUntil: before.bannedUntil } : {}),
        ...(before?.banCount !== undefined ? { banCount: before.banCount } : {}),
        minute,
        minuteCount: 1,
        dayCount: (before?.dayCount ?? 0) + 1,
        hour: usage.hour,
      };
    });
    return outcome;
  }

  /** A finished hour's counts on its hour item, kept as long as its day counter. */
  async recordHour(counterId: string, finished: HourUsage, expiresAtSeconds: number): Promise<void> {
    const clauses: string[] = ['#hour = :hour', '#expiresAt = :expiresAt'];
    const names: Record<string, string> = { '#hour': HOUR_ATTRIBUTE, '#expiresAt': 'expiresAt' };
    const values: Record<string, unknown> = { ':hour': finished.hour, ':expiresAt': expiresAtSeconds };
    const counted = [
      ...Object.entries(finished.counts.admitted).map(
        ([op, n]) => [usageAttribute.hourAdmitted(op), n] as const,
      ),
      ...Object.entries(finished.counts.refused).map(
        ([op, n]) => [usageAttribute.hourRefused(op), n] as const,
      ),
    ];
    for (const [index, [attribute, count]] of counted.entries()) {
      clauses.push(`#c${index} = :c${index}`);
      names[`#c${index}`] = attribute;
      values[`:c${index}`] = count;
    }
    await storeCall(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { counterId: hourItemId(counterId, finished.hour) },
          // Only the write that moved the hour off its day counter has these counts: SET, not ADD.
          UpdateExpression: `SET ${clauses.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  /** Refusals carried by no counting write, added to the day counter (one unconditional write). */
  async addRefused(
    counterId: string,
    refused: Readonly<Record<string, number>>,
    hour: number,
    counterInHour: boolean,
    expiresAtSeconds: number,
  ): Promise<void> {
    const added: string[] = [];
    const names: Record<string, string> = { '#expiresAt': 'expiresAt' };
    const values: Record<string, unknown> = { ':expiresAt': expiresAtSeconds };
    for (const [index, [operation, count]] of Object.entries(refused).entries()) {
      names[`#h${index}`] = counterInHour
        ? usageAttribute.hourRefused(operation)
        : refusedAtHourAttribute(hour, operation);
      names[`#d${index}`] = usageAttribute.dayRefused(operation);
      values[`:n${index}`] = count;
      added.push(`#h${index} :n${index}`, `#d${index} :n${index}`);
    }
    if (added.length === 0) return;
    await storeCall(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { counterId },
          UpdateExpression: `SET #expiresAt = if_not_exists(#expiresAt, :expiresAt) ADD ${added.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  async read(counterId: string, subject: string = WHOLE_CALLER): Promise<CounterState | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { counterId }, ConsistentRead: true }),
      ),
    );
    return toState(Item, subject);
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

  /** `stateAfter`: for a write that answers the item as it was (ALL_OLD), the counter it left. */
  private async conditionalUpdate(
    subject: string,
    input: ConstructorParameters<typeof UpdateCommand>[0],
    stateAfter?: (old: Record<string, unknown> | undefined) => CounterState,
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
    if (stateAfter) {
      const hour = input.ExpressionAttributeValues?.[':uhour'] as number;
      const finishedHour = finishedHourOf(attributes, hour);
      return { counted: true, state: stateAfter(attributes), ...(finishedHour ? { finishedHour } : {}) };
    }
    const state = toState(attributes, subject);
    // ALL_NEW returns the item an update wrote; a store that does not cannot be counted on.
    if (!state) throw new StoreUnavailableError(new Error('a counter update returned no counter'));
    return { counted: true, state };
  }
}
