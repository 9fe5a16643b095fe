import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type MemberRecord, type MemberStore, type PersonRef, personKey } from '../core/members';
import type { Role } from '../core/permissions';
import { allInIndexPartition, allPages, conditionalWrite, storeCall } from './dynamodb-client';
import { PROJECT_MEMBERS_TABLE } from './table-schema';

const [PERSON_INDEX] = PROJECT_MEMBERS_TABLE.globalIndexes;

/** A member item: the record with its key attribute `person` (`<issuer>#<subject>`). */
type MemberItem = MemberRecord & { readonly person: string };

function recordOf(item: Record<string, unknown>): MemberRecord {
  const { project, issuer, subject, email, name, role, addedAt } = item as unknown as MemberItem;
  return { project, issuer, subject, email, ...(name === undefined ? {} : { name }), role, addedAt };
}

/**
 * The only code that knows how members are stored: one item per project and person, read by
 * key (the role of each request, consistently), by project (a Query of the partition) and by
 * person (a Query of the person index). Every change is conditional on the member's role, but
 * the removal of a deleted project's members.
 */
export class MemberRepository implements MemberStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(project: string, person: PersonRef): Promise<MemberRecord | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { project, person: personKey(person) },
          ConsistentRead: true,
        }),
      ),
    );
    return Item ? recordOf(Item) : undefined;
  }

  async listOf(project: string): Promise<MemberRecord[]> {
    const items = await allPages((startKey) =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#project = :project',
          ExpressionAttributeNames: { '#project': 'project' },
          ExpressionAttributeValues: { ':project': project },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    return items.map(recordOf);
  }

  async projectsOf(person: PersonRef): Promise<MemberRecord[]> {
    const items = await allInIndexPartition(this.client, this.tableName, PERSON_INDEX, personKey(person));
    return items.map(recordOf).sort((a, b) => a.project.localeCompare(b.project));
  }

  async create(record: MemberRecord): Promise<boolean> {
    const item: MemberItem = { ...record, person: personKey(record) };
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(person)',
        }),
      ),
    );
  }

  async setRole(project: string, person: PersonRef, from: Role, to: Role): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { project, person: personKey(person) },
          UpdateExpression: 'SET #role = :to',
          ConditionExpression: '#role = :from',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':from': from, ':to': to },
        }),
      ),
    );
  }

  /**
   * Removes every member of a project, whatever their role: the platform's, once the project is
   * deleted (no member rule applies to a project that is gone). The number removed.
   */
  async deleteAllOf(project: string): Promise<number> {
    const members = await this.listOf(project);
    for (const member of members) {
      await storeCall(() =>
        this.client.send(
          new DeleteCommand({ TableName: this.tableName, Key: { project, person: personKey(member) } }),
        ),
      );
    }
    return members.length;
  }

  async delete(project: string, person: PersonRef, from: Role): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { project, person: personKey(person) },
          ConditionExpression: '#role = :from',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':from': from },
        }),
      ),
    );
  }
}
