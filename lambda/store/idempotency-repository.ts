/**
 * Idempotency records in DynamoDB: the only code that knows how they are stored.
 *
 * Borrowed from the design of Powertools' Idempotency utility (`@aws-lambda-powertools/idempotency`,
 * not a dependency): one item per key, written by a conditional put that succeeds only when no
 * live record exists; an in-progress status whose hold on the key passes after a deadline
 * (its `in_progress_expiration`, our lease); a hash of the payload stored with the key
 * (its payload validation) so that a reuse with another body is refused; the response kept for
 * replay; DynamoDB TTL for expiry, checked in code as well since TTL deletes late. Not used as
 * is because it deletes its in-progress record when the handler throws after its side effect
 * (a retry would then create a second pet), and it cannot store a reservation before it: here
 * the record holds the pet's id and create token before the pet is written, an in-flight
 * record is never deleted but taken over, and completion is conditional on the reservation.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreUnavailableError } from '../core/errors';
import {
  type CompletedRecord,
  epochSeconds,
  type IdempotencyRecord,
  type IdempotencyStore,
  type InFlightRecord,
  type Lease,
  type PetReservation,
  type ReserveOutcome,
} from '../core/idempotency';
import type { Pet } from '../core/pet';
import { conditionalWrite, isConditionalCheckFailure, storeCall, storeFailure } from './dynamodb-client';
import { IDEMPOTENCY_TABLE } from './table-schema';

const KEY = IDEMPOTENCY_TABLE.partitionKey.name;

/** The stored item; times in epoch milliseconds except the TTL attribute (epoch seconds). */
interface IdempotencyItem {
  /** `<project>#<key>`: project names are DNS labels, so the first `#` ends the project. */
  scopedKey: string;
  fingerprint: string;
  state: IdempotencyRecord['state'];
  petId: number;
  createToken: string;
  reservedAt: number;
  leaseOwner: string;
  leaseUntil: number;
  expiresAt: number;
  pet?: Pet;
  completedAt?: number;
}

// `state` is a DynamoDB reserved word; every attribute goes through a name for uniformity.
const NAMES = {
  '#scopedKey': KEY,
  '#state': 'state',
  '#petId': 'petId',
  '#createToken': 'createToken',
  '#reservedAt': 'reservedAt',
  '#leaseOwner': 'leaseOwner',
  '#leaseUntil': 'leaseUntil',
  '#expiresAt': IDEMPOTENCY_TABLE.timeToLiveAttribute,
} as const;

type Placeholder = keyof typeof NAMES;

/** The attribute names an expression uses (DynamoDB refuses unused ones). */
function names(...placeholders: Placeholder[]): Record<string, string> {
  return Object.fromEntries(placeholders.map((placeholder) => [placeholder, NAMES[placeholder]]));
}

const IN_FLIGHT: IdempotencyRecord['state'] = 'in_flight';

function scopedKey(project: string, key: string): string {
  return `${project}#${key}`;
}

function toItem(project: string, key: string, record: IdempotencyRecord): IdempotencyItem {
  return {
    scopedKey: scopedKey(project, key),
    fingerprint: record.fingerprint,
    state: record.state,
    petId: record.petId,
    createToken: record.createToken,
    reservedAt: record.reservedAtMs,
    leaseOwner: record.leaseOwner,
    leaseUntil: record.leaseUntilMs,
    expiresAt: record.expiresAtSeconds,
    ...(record.state === 'completed' ? { pet: record.pet, completedAt: record.completedAtMs } : {}),
  };
}

function toRecord(raw: Record<string, unknown>): IdempotencyRecord {
  const item = raw as unknown as IdempotencyItem;
  const common = {
    fingerprint: item.fingerprint,
    petId: Number(item.petId),
    createToken: item.createToken,
    reservedAtMs: Number(item.reservedAt),
    leaseOwner: item.leaseOwner,
    leaseUntilMs: Number(item.leaseUntil),
    expiresAtSeconds: Number(item.expiresAt),
  };
  if (item.state === 'in_flight') return { state: 'in_flight', ...common } satisfies InFlightRecord;
  if (item.state === 'completed' && item.pet) {
    const { id, name, categoryId, status } = item.pet;
    return {
      state: 'completed',
      ...common,
      pet: { id: Number(id), name, categoryId: Number(categoryId), status },
      completedAtMs: Number(item.completedAt),
    } satisfies CompletedRecord;
  }
  // Only this module writes the table: anything else is a corrupt store, not a caller's mistake.
  throw new StoreUnavailableError(new Error(`idempotency record ${item.scopedKey} has no valid state`));
}

/** Idempotency records of `POST /pets`, one item per key per project; every write is conditional. */
export class IdempotencyRepository implements IdempotencyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(project: string, key: string): Promise<IdempotencyRecord | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { [KEY]: scopedKey(project, key) },
          ConsistentRead: true,
        }),
      ),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async reserve(
    project: string,
    key: string,
    record: InFlightRecord,
    nowMs: number,
  ): Promise<ReserveOutcome> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(project, key, record),
          ConditionExpression: 'attribute_not_exists(#scopedKey) OR #expiresAt <= :now',
          ExpressionAttributeNames: names('#scopedKey', '#expiresAt'),
          ExpressionAttributeValues: { ':now': epochSeconds(nowMs) },
          // A failed condition answers with the live record: no read needed to see why.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { reserved: true };
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw storeFailure(error);
      // The document client does not unmarshall an error's item.
      const found = (error as { Item?: Record<string, AttributeValue> }).Item;
      return found ? { reserved: false, current: toRecord(unmarshall(found)) } : { reserved: false };
    }
  }

  takeOver(project: string, key: string, from: Lease, to: Lease, expiresAtSeconds: number): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: scopedKey(project, key) },
          UpdateExpression: 'SET #leaseOwner = :owner, #leaseUntil = :until, #expiresAt = :expiresAt',
          ConditionExpression: '#state = :inFlight AND #leaseOwner = :fromOwner AND #leaseUntil = :fromUntil',
          ExpressionAttributeNames: names('#state', '#leaseOwner', '#leaseUntil', '#expiresAt'),
          ExpressionAttributeValues: {
            ':owner': to.leaseOwner,
            ':until': to.leaseUntilMs,
            ':expiresAt': expiresAtSeconds,
            ':inFlight': IN_FLIGHT,
            ':fromOwner': from.leaseOwner,
            ':fromUntil': from.leaseUntilMs,
          },
        }),
      ),
    );
  }

  reassign(
    project: string,
    key: string,
    owner: string,
    from: PetReservation,
    to: PetReservation,
  ): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: scopedKey(project, key) },
          UpdateExpression: 'SET #petId = :petId, #createToken = :token, #reservedAt = :reservedAt',
          ConditionExpression:
            '#state = :inFlight AND #leaseOwner = :owner AND #petId = :fromPetId AND #createToken = :fromToken',
          ExpressionAttributeNames: names('#state', '#leaseOwner', '#petId', '#createToken', '#reservedAt'),
          ExpressionAttributeValues: {
            ':petId': to.petId,
            ':token': to.createToken,
            ':reservedAt': to.reservedAtMs,
            ':inFlight': IN_FLIGHT,
            ':owner': owner,
            ':fromPetId': from.petId,
            ':fromToken': from.createToken,
          },
        }),
      ),
    );
  }

  complete(project: string, key: string, record: CompletedRecord): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(project, key, record),
          // In flight with this reservation (whoever holds the lease: the pet is the same), or
          // completed by this very attempt (the SDK retried a write that had landed).
          ConditionExpression:
            '#petId = :petId AND #createToken = :token AND (#state = :inFlight OR #leaseOwner = :owner)',
          ExpressionAttributeNames: names('#petId', '#createToken', '#state', '#leaseOwner'),
          ExpressionAttributeValues: {
            ':petId': record.petId,
            ':token': record.createToken,
            ':inFlight': IN_FLIGHT,
            ':owner': record.leaseOwner,
          },
        }),
      ),
    );
  }
}
