import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  INVITATION_KEPT_MS,
  type InvitationChange,
  type InvitationRecord,
  type InvitationStore,
} from '../core/invitations';
import {
  allInIndexPartition,
  conditionalWrite,
  isConditionalCheckFailure,
  storeCall,
  storeFailure,
} from './dynamodb-client';
import { INVITATIONS_TABLE } from './table-schema';

const [PROJECT_INDEX] = INVITATIONS_TABLE.globalIndexes;

const FIELDS = [
  'invitationId',
  'project',
  'secretHash',
  'email',
  'role',
  'invitedBy',
  'inviter',
  'createdAt',
  'expiresAt',
  'state',
  'acceptedAt',
  'acceptedBy',
  'revokedAt',
  'holdsPlace',
] as const;

/**
 * The key of a project's counter of places under the cap: an item of this table with no `project`
 * (so no listing shows it) and no `purgeAt` (so no TTL deletes it), which no link's id can name.
 */
export const placesKey = (project: string): string => `#places#${project}`;

/** When DynamoDB's TTL may delete an item that ends at `nowIso`: {@link INVITATION_KEPT_MS} later, epoch seconds. */
const purgeAtAfter = (nowIso: string): number => Math.ceil((Date.parse(nowIso) + INVITATION_KEPT_MS) / 1000);

function recordOf(item: Record<string, unknown>): InvitationRecord {
  const record: Record<string, unknown> = {};
  for (const field of FIELDS) if (item[field] !== undefined) record[field] = item[field];
  return record as unknown as InvitationRecord;
}

/**
 * The only code that knows how invitations are stored: one item per invitation keyed by its id,
 * a project's listed through the project index. Accepting and revoking are conditional updates
 * on the state (and, for accepting, the expiry), so two concurrent ones cannot both win.
 *
 * The cap's places: a counter item per project in the same table ({@link placesKey}), taken and
 * given back with conditional `ADD`s (DynamoDB, and the embedded store, apply each update to an
 * item alone, so concurrent takes never pass the cap). An invitation marks the place it holds
 * with `holdsPlace`; the update that ends it removes the mark and returns the item as it was, so
 * exactly one change gives each place back. An item gets its `purgeAt` only then: an expired
 * invitation that still holds a place is never deleted by the TTL before its place is reclaimed.
 */
export class InvitationRepository implements InvitationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(invitationId: string): Promise<InvitationRecord | undefined> {
    if (invitationId.startsWith('#')) return undefined;
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { invitationId }, ConsistentRead: true }),
      ),
    );
    return Item ? recordOf(Item) : undefined;
  }

  async listOf(project: string): Promise<InvitationRecord[]> {
    const items = await allInIndexPartition(this.client, this.tableName, PROJECT_INDEX, project);
    return items.map(recordOf).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  create(record: InvitationRecord): Promise<boolean> {
    // No `purgeAt` yet: it holds a place until it ends (accepted, revoked, or reclaimed).
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...record },
          ConditionExpression: 'attribute_not_exists(invitationId)',
        }),
      ),
    );
  }

  accept(
    invitationId: string,
    project: string,
    nowIso: string,
    acceptedBy: string,
  ): Promise<InvitationChange | undefined> {
    return this.end({
      TableName: this.tableName,
      Key: { invitationId },
      UpdateExpression:
        'SET #state = :accepted, acceptedAt = :now, acceptedBy = :by, purgeAt = :purgeAt REMOVE holdsPlace',
      ConditionExpression: '#state = :pending AND #project = :project AND expiresAt > :now',
      ExpressionAttributeNames: { '#state': 'state', '#project': 'project' },
      ExpressionAttributeValues: {
        ':accepted': 'accepted',
        ':pending': 'pending',
        ':project': project,
        ':now': nowIso,
        ':by': acceptedBy,
        ':purgeAt': purgeAtAfter(nowIso),
      },
    });
  }

  revoke(invitationId: string, project: string, nowIso: string): Promise<InvitationChange | undefined> {
    return this.end({
      TableName: this.tableName,
      Key: { invitationId },
      UpdateExpression: 'SET #state = :revoked, revokedAt = :now, purgeAt = :purgeAt REMOVE holdsPlace',
      ConditionExpression: '#state = :pending AND #project = :project',
      ExpressionAttributeNames: { '#state': 'state', '#project': 'project' },
      ExpressionAttributeValues: {
        ':revoked': 'revoked',
        ':pending': 'pending',
        ':project': project,
        ':now': nowIso,
        ':purgeAt': purgeAtAfter(nowIso),
      },
    });
  }

  async reopen(
    invitationId: string,
    acceptedAt: string,
    acceptedBy: string,
    holdsPlace: boolean,
  ): Promise<void> {
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { invitationId },
          UpdateExpression: `SET #state = :pending${holdsPlace ? ', holdsPlace = :true' : ''} REMOVE acceptedAt, acceptedBy, purgeAt`,
          ConditionExpression: '#state = :accepted AND acceptedAt = :at AND acceptedBy = :by',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':accepted': 'accepted',
            ':at': acceptedAt,
            ':by': acceptedBy,
            ...(holdsPlace ? { ':true': true } : {}),
          },
        }),
      ),
    );
  }

  async releaseExpired(invitationId: string, project: string, nowIso: string): Promise<boolean> {
    return (
      (await this.end({
        TableName: this.tableName,
        Key: { invitationId },
        UpdateExpression: 'SET purgeAt = :purgeAt REMOVE holdsPlace',
        ConditionExpression:
          '#state = :pending AND #project = :project AND expiresAt <= :now AND attribute_exists(holdsPlace)',
        ExpressionAttributeNames: { '#state': 'state', '#project': 'project' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':project': project,
          ':now': nowIso,
          ':purgeAt': purgeAtAfter(nowIso),
        },
      })) !== undefined
    );
  }

  /** A conditional update that ends an invitation's place: undefined when refused, else whether it held one. */
  private async end(update: UpdateCommandInput): Promise<InvitationChange | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({ ...update, ReturnValues: 'ALL_OLD' }),
      );
      return { freedPlace: Attributes?.holdsPlace === true };
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw storeFailure(error);
    }
  }

  takePlace(project: string, cap: number): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { invitationId: placesKey(project) },
          UpdateExpression: 'ADD taken :one',
          ConditionExpression: 'attribute_not_exists(taken) OR taken < :cap',
          ExpressionAttributeValues: { ':one': 1, ':cap': cap },
        }),
      ),
    );
  }

  async givePlaceBack(project: string): Promise<void> {
    // Nothing taken (the counter was removed with its project): nothing to give back.
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { invitationId: placesKey(project) },
          UpdateExpression: 'ADD taken :minusOne',
          ConditionExpression: 'taken > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      ),
    );
  }

  /**
   * Deletes every invitation of a project and its counter of places (the projects tool, with the
   * project): no link of it joins a later project of the same name. The number of invitations.
   */
  async deleteAllOf(project: string): Promise<number> {
    const invitations = await this.listOf(project);
    for (const { invitationId } of invitations) {
      await storeCall(() =>
        this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { invitationId } })),
      );
    }
    await storeCall(() =>
      this.client.send(
        new DeleteCommand({ TableName: this.tableName, Key: { invitationId: placesKey(project) } }),
      ),
    );
    return invitations.length;
  }

  /** The places the project's invitations hold (the counter), 0 when it has none. */
  async placesTaken(project: string): Promise<number> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { invitationId: placesKey(project) },
          ConsistentRead: true,
        }),
      ),
    );
    return Number(Item?.taken ?? 0);
  }
}
