import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { CustomDomain } from '../core/custom-domains/custom-domain';
import type { CustomDomainStore } from '../core/custom-domains/custom-domains';
import { allInIndexPartition, allPages, conditionalWrite, storeCall } from './dynamodb-client';
import { CUSTOM_DOMAINS_TABLE } from './table-schema';

const [PROJECT_INDEX] = CUSTOM_DOMAINS_TABLE.globalIndexes;

/**
 * The key of a project's primary claim, an item of the same table: `#` never stands in a host
 * name, so no domain (nor a Host header the authorizer looks up) has it. The item has no
 * `project` attribute, so it stays out of the project index, and its `primary` is the domain.
 */
export const primaryClaimKey = (project: string): string => `#primary#${project}`;
/** The project-wide items (a primary claim, a domain count): keyed `#…`, with no domain. */
const isProjectItem = (item: Record<string, unknown>) =>
  String(item.name).startsWith('#') && typeof item.domain !== 'string';

/**
 * The key of a project's claim on a name it does not own: `#claim#<name>#<project>`. It has a
 * `project`, so the project's listing (the index) shows it, but no Host ever reads it.
 */
export const nameClaimKey = (name: string, project: string): string => `#claim#${name}#${project}`;
/** The key of a project's domain count, the counter that holds the cap under concurrency. */
export const domainCountKey = (project: string): string => `#count#${project}`;

/** A record's key: the name itself for the owner, the claim key for a claim. */
const keyOf = (domain: CustomDomain): string =>
  domain.claim ? nameClaimKey(domain.name, domain.project) : domain.name;

/** The stored item of a record: a claim keeps its name in `domain`, its key being the claim key. */
function toItem(domain: CustomDomain): Record<string, unknown> {
  return domain.claim ? { ...domain, name: keyOf(domain), domain: domain.name } : { ...domain };
}

function fromItem(item: Record<string, unknown>): CustomDomain {
  if (typeof item.domain !== 'string') return item as unknown as CustomDomain;
  const { domain, ...rest } = item;
  return { ...(rest as unknown as CustomDomain), name: domain, claim: true };
}

/**
 * The only code that knows how custom domains are stored: the owner's record is keyed by its
 * name (the one item the authorizer reads for a host), each other project's claim on it by name
 * and project, and each project's primary claim and domain count are items beside them.
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
    const items = await allInIndexPartition(this.client, this.tableName, PROJECT_INDEX, project);
    // A name moving from claim to owner is briefly both: the owner's record is the one.
    const owned = new Set(items.filter((item) => typeof item.domain !== 'string').map((item) => item.name));
    return items.filter((item) => !owned.has(item.domain)).map(fromItem);
  }

  async getClaim(name: string, project: string): Promise<CustomDomain | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { name: nameClaimKey(name, project) },
          ConsistentRead: true,
        }),
      ),
    );
    return Item ? fromItem(Item) : undefined;
  }

  /**
   * Makes `domain` the owner's record, only if the name's owner item is still `previous` (its
   * project and version; undefined: only if there is none). The one write that decides who owns
   * a name.
   */
  takeName(domain: CustomDomain, previous: CustomDomain | undefined): Promise<boolean> {
    const owner: { claim?: true } = { ...domain };
    delete owner.claim;
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: owner,
          ...(previous === undefined
            ? {
                ConditionExpression: 'attribute_not_exists(#name)',
                ExpressionAttributeNames: { '#name': 'name' },
              }
            : {
                ConditionExpression: '#project = :project AND #version = :version',
                ExpressionAttributeNames: { '#project': 'project', '#version': 'version' },
                ExpressionAttributeValues: { ':project': previous.project, ':version': previous.version },
              }),
        }),
      ),
    );
  }

  /** Stores (or replaces) a project's claim whatever was there: a former owner's record, kept for it. */
  async putClaim(domain: CustomDomain): Promise<void> {
    await storeCall(() =>
      this.client.send(
        new PutCommand({ TableName: this.tableName, Item: toItem({ ...domain, claim: true }) }),
      ),
    );
  }

  async domainCount(project: string): Promise<number | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { name: domainCountKey(project) },
          ConsistentRead: true,
        }),
      ),
    );
    return typeof Item?.count === 'number' ? Item.count : undefined;
  }

  async startDomainCount(project: string, count: number): Promise<void> {
    // Another request started it first: its count stands.
    await conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { name: domainCountKey(project), count },
          ConditionExpression: 'attribute_not_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      ),
    );
  }

  /** One atomic, conditional increment: of any number of concurrent calls, only those under `max` succeed. */
  reserveDomain(project: string, max: number): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { name: domainCountKey(project) },
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: 'attribute_exists(#name) AND #count < :max',
          ExpressionAttributeNames: { '#name': 'name', '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':max': max },
        }),
      ),
    );
  }

  async releaseDomain(project: string): Promise<void> {
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { name: domainCountKey(project) },
          UpdateExpression: 'ADD #count :minus',
          ConditionExpression: 'attribute_exists(#name) AND #count > :zero',
          ExpressionAttributeNames: { '#name': 'name', '#count': 'count' },
          ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
        }),
      ),
    );
  }

  /** How many domains a project has (the projects tool refuses a plan without custom domains then). */
  async countByProject(project: string): Promise<number> {
    return (await this.listByProject(project)).length;
  }

  /** Every record, owners' and claims (local mode restores the edge's tenants from it at start; operators' listings). */
  async all(): Promise<CustomDomain[]> {
    return (
      await allPages((startKey) =>
        this.client.send(new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey })),
      )
    )
      .filter((item) => !isProjectItem(item))
      .map(fromItem);
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
          Item: toItem(domain),
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
          Item: toItem(domain),
          ConditionExpression: '#project = :project AND #version = :previous',
          ExpressionAttributeNames: { '#project': 'project', '#version': 'version' },
          ExpressionAttributeValues: { ':project': domain.project, ':previous': domain.version - 1 },
        }),
      ),
    );
  }

  /** Deletes the project's claim on the name, if it has one (a conditional delete: false when not). */
  deleteClaim(name: string, project: string): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { name: nameClaimKey(name, project) },
          ConditionExpression: 'attribute_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      ),
    );
  }

  /** Deletes the project's record of the name: the owner's if it is the project's, and its claim. */
  async delete(name: string, project: string): Promise<boolean> {
    const deleted = await Promise.all(
      [name, nameClaimKey(name, project)].map((key) =>
        conditionalWrite(() =>
          this.client.send(
            new DeleteCommand({
              TableName: this.tableName,
              Key: { name: key },
              ConditionExpression: '#project = :project',
              ExpressionAttributeNames: { '#project': 'project' },
              ExpressionAttributeValues: { ':project': project },
            }),
          ),
        ),
      ),
    );
    return deleted.some(Boolean);
  }
}
