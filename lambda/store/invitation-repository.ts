import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { INVITATION_KEPT_MS, type InvitationRecord, type InvitationStore } from '../core/invitations';
import { allInIndexPartition, conditionalWrite, storeCall } from './dynamodb-client';
import { INVITATIONS_TABLE } from './table-schema';

const [PROJECT_INDEX] = INVITATIONS_TABLE.globalIndexes;

const FIELDS = [
  'invitationId',
  'project',
  'secretHash',
  'email',
  'role',
  'invitedBy',
  'createdAt',
  'expiresAt',
  'state',
  'acceptedAt',
  'acceptedBy',
  'revokedAt',
] as const;

function recordOf(item: Record<string, unknown>): InvitationRecord {
  const record: Record<string, unknown> = {};
  for (const field of FIELDS) if (item[field] !== undefined) record[field] = item[field];
  return record as unknown as InvitationRecord;
}

/**
 * The only code that knows how invitations are stored: one item per invitation keyed by its id,
 * a project's listed through the project index. Accepting and revoking are conditional updates
 * on the state (and, for accepting, the expiry), so two concurrent ones cannot both win.
 */
export class InvitationRepository implements InvitationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(invitationId: string): Promise<InvitationRecord | undefined> {
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
    const purgeAt = Math.ceil((Date.parse(record.expiresAt) + INVITATION_KEPT_MS) / 1000);
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...record, purgeAt },
          ConditionExpression: 'attribute_not_exists(invitationId)',
        }),
      ),
    );
  }

  accept(invitationId: string, project: string, nowIso: string, acceptedBy: string): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { invitationId },
          UpdateExpression: 'SET #state = :accepted, acceptedAt = :now, acceptedBy = :by',
          ConditionExpression: '#state = :pending AND #project = :project AND expiresAt > :now',
          ExpressionAttributeNames: { '#state': 'state', '#project': 'project' },
          ExpressionAttributeValues: {
            ':accepted': 'accepted',
            ':pending': 'pending',
            ':project': project,
            ':now': nowIso,
            ':by': acceptedBy,
          },
        }),
      ),
    );
  }

  revoke(invitationId: string, project: string, nowIso: string): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { invitationId },
          UpdateExpression: 'SET #state = :revoked, revokedAt = :now',
          ConditionExpression: '#state = :pending AND #project = :project',
          ExpressionAttributeNames: { '#state': 'state', '#project': 'project' },
          ExpressionAttributeValues: {
            ':revoked': 'revoked',
            ':pending': 'pending',
            ':project': project,
            ':now': nowIso,
          },
        }),
      ),
    );
  }
}
