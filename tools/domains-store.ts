import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';

/** Where a domain is in the spec's flow (add → DNS → verify → certificate → active). */
export const DOMAIN_STATES = ['pending-dns', 'verified', 'certificate-pending', 'active', 'failed'] as const;
export type DomainState = (typeof DOMAIN_STATES)[number];

/** A domain's verification and certificate state; the domain list itself is the configuration. */
export interface DomainStateRecord {
  /** The domain name. */
  readonly id: string;
  readonly project: string;
  readonly state: DomainState;
  /** When the domain entered `state` (ISO 8601). */
  readonly since: string;
  /** Why it failed, for `failed`. */
  readonly reason?: string;
  /** The ACM certificate, once known: its status then comes from ACM. */
  readonly certificateArn?: string;
}

/** A project's first successful deploy, which `add` requires. */
export interface ProjectDeployRecord {
  readonly id: string;
  readonly project: string;
  readonly deployedAt: string;
}

const projectId = (project: string) => `project:${project}`;

/** The only code that knows how domain state is stored. */
export class DomainStateStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(domain: string): Promise<DomainStateRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { id: domain } }),
    );
    return Item as DomainStateRecord | undefined;
  }

  async put(record: DomainStateRecord): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: record }));
  }

  async delete(domain: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id: domain } }));
  }

  /** Every domain record by name (a full scan: an operator's listing). */
  async all(): Promise<Map<string, DomainStateRecord>> {
    const found = new Map<string, DomainStateRecord>();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey }),
      );
      for (const item of page.Items ?? []) {
        if (typeof item.id === 'string' && !item.id.startsWith('project:'))
          found.set(item.id, item as DomainStateRecord);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found;
  }

  async deployOf(project: string): Promise<ProjectDeployRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { id: projectId(project) } }),
    );
    return Item as ProjectDeployRecord | undefined;
  }

  /** Records a successful deploy; the first one is kept. */
  async recordDeploy(project: string, at: Date): Promise<ProjectDeployRecord> {
    const existing = await this.deployOf(project);
    if (existing) return existing;
    const record = { id: projectId(project), project, deployedAt: at.toISOString() };
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: record }));
    return record;
  }
}
