import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import type { CustomDomain } from '../domain/custom-domain';
import type { CustomDomainStore } from '../domain/custom-domains';
import { allInIndexPartition, allPages, conditionalWrite, storeCall } from './dynamodb-client';
import { CUSTOM_DOMAINS_TABLE } from './table-schema';

const [PROJECT_INDEX] = CUSTOM_DOMAINS_TABLE.globalIndexes;

/**
 * The key of a project's primary claim, an item of the same table: `#` never stands in a host
 * name, so no domain (nor a Host header the authorizer looks up) has it. The item has no
 * `project` attribute, so it stays out of the project index, and its `primary` is the domain.
 */
export const primaryClaimKey = (project: string): string => `#primary#${project}`;
const isClaim = (item: Record<string, unknown>) => String(item.name).startsWith('#');

/**
 * The only code that knows how custom domains are stored: the item is the record, keyed by its
 * name, and each project's primary claim is an item beside them.
 */
export class CustomDomainRepository implements CustomDomainStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(name: string): Promise<CustomDomain | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { name }, ConsistentRead: true })),
    );
    return Item as CustomDomain | undefined;
  }

  /** A Query on the project index: it reads only that project's domains (eventually consistent). */
  async listByProject(project: string): Promise<CustomDomain[]> {
    return (await allInIndexPartition(
      this.client,
      this.tableName,
      PROJECT_INDEX,
      project,
    )) as unknown as CustomDomain[];
  }

  /** How many domains a project has (the projects tool refuses a plan without custom domains then). */
  async countByProject(project: string): Promise<number> {
    return (await this.listByProject(project)).length;
  }

  /** Every domain (local mode restores the edge's tenants from it at start; operators' listings). */
  async all(): Promise<CustomDomain[]> {
    return (
      await allPages((startKey) =>
        this.client.send(new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey })),
      )
    ).filter((item) => !isClaim(item)) as unknown as CustomDomain[];
  }

  async claimedPrimary(project: string): Promise<string | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { name: primaryClaimKey(project) },
          ConsistentRead: true,
        }),
      ),
    );
    return typeof Item?.primary === 'string' ? Item.primary : undefined;
  }

  claimPrimary(project: string, name: string, expected: string | undefined): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { name: primaryClaimKey(project), primary: name },
          ...(expected === undefined
            ? {
                ConditionExpression: 'attribute_not_exists(#name)',
                ExpressionAttributeNames: { '#name': 'name' },
              }
            : {
                ConditionExpression: '#primary = :expected',
                ExpressionAttributeNames: { '#primary': 'primary' },
                ExpressionAttributeValues: { ':expected': expected },
              }),
        }),
      ),
    );
  }

  async releasePrimary(project: string, name: string): Promise<void> {
    // Already released or moved to another domain: nothing to do.
    await conditionalWrite(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { name: primaryClaimKey(project) },
          ConditionExpression: '#primary = :name',
          ExpressionAttributeNames: { '#primary': 'primary' },
          ExpressionAttributeValues: { ':name': name },
        }),
      ),
    );
  }

  create(domain: CustomDomain): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: domain,
          ConditionExpression: 'attribute_not_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      ),
    );
  }

  update(domain: CustomDomain): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: domain,
          ConditionExpression: '#project = :project AND #version = :previous',
          ExpressionAttributeNames: { '#project': 'project', '#version': 'version' },
          ExpressionAttributeValues: { ':project': domain.project, ':previous': domain.version - 1 },
        }),
      ),
    );
  }

  delete(name: string, project: string): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { name },
          ConditionExpression: '#project = :project',
          ExpressionAttributeNames: { '#project': 'project' },
          ExpressionAttributeValues: { ':project': project },
        }),
      ),
    );
  }
}
