import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { PlanLimits, PlanName } from '../core/plans';
import type { ProjectRecord, ProjectStore } from '../core/project';
import type { OwnerCountStore } from '../core/members';
import type { ProjectKeyCountStore } from '../core/project-keys';
import { allPages, conditionalWrite, storeCall } from './dynamodb-client';

/** The only code that knows how projects are stored. */
export class ProjectRepository implements ProjectStore, ProjectKeyCountStore, OwnerCountStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(name: string): Promise<ProjectRecord | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { name }, ConsistentRead: true })),
    );
    return Item as ProjectRecord | undefined;
  }

  /** Stores a new project; false when one of that name exists already. */
  async create(record: ProjectRecord): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: record,
          ConditionExpression: 'attribute_not_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      ),
    );
  }

  /** Every project, by name (an operator's listing: a full scan is fine at this scale). */
  async list(): Promise<ProjectRecord[]> {
    const records = (await allPages((startKey) =>
      this.client.send(new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey })),
    )) as unknown as ProjectRecord[];
    return records.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Moves a project to a plan (with its agreed numbers on an agreed plan), and to a new
   * gateway usage identifier when given, in one write: no reader ever sees the plan of one
   * and the usage plan of the other. False when there is no such project.
   */
  async setPlan(name: string, plan: PlanName, agreedLimits?: PlanLimits, usageId?: string): Promise<boolean> {
    const set = [
      '#plan = :plan',
      ...(agreedLimits ? ['agreedLimits = :limits'] : []),
      ...(usageId ? ['usageId = :usageId'] : []),
    ];
    return this.update(name, `SET ${set.join(', ')}${agreedLimits ? '' : ' REMOVE agreedLimits'}`, {
      ':plan': plan,
      ...(agreedLimits ? { ':limits': agreedLimits } : {}),
      ...(usageId ? { ':usageId': usageId } : {}),
    });
  }

  /** Replaces the console token's hash (the old token stops working at once). */
  async setConsoleToken(name: string, hash: string, issuedAt: Date): Promise<boolean> {
    return this.update(name, 'SET consoleTokenHash = :hash, consoleTokenIssuedAt = :at', {
      ':hash': hash,
      ':at': issuedAt.toISOString(),
    });
  }

  /** Replaces the browser origins the project allows (an empty list removes them all). */
  async setAllowedOrigins(name: string, origins: readonly string[]): Promise<boolean> {
    return origins.length > 0
      ? this.update(name, 'SET allowedOrigins = :origins', { ':origins': [...origins] })
      : this.update(name, 'REMOVE allowedOrigins', undefined);
  }

  /** Points the project at another gateway usage identifier (a plan change moves it to another usage plan). */
  async setUsageId(name: string, usageId: string): Promise<boolean> {
    return this.update(name, 'SET usageId = :usageId', { ':usageId': usageId });
  }

  /**
   * The project's target id, given `candidate` if it has none yet (a project made before
   * per-project targets): set once, conditionally, so two concurrent callers agree on one id,
   * and never changed afterwards. Undefined when there is no such project.
   */
  async assignTargetId(name: string, candidate: string): Promise<string | undefined> {
    await this.update(name, 'SET targetId = :id', { ':id': candidate }, 'attribute_not_exists(targetId)');
    return (await this.get(name))?.targetId;
  }

  async delete(name: string): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { name },
          ConditionExpression: 'attribute_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      ),
    );
  }

  /** Starts the count of the project's active keys at `count`; false when it has one, or no project. */
  async startKeyCount(name: string, count: number): Promise<boolean> {
    return this.update(
      name,
      'SET activeKeys = :count',
      { ':count': count },
      'attribute_not_exists(activeKeys)',
    );
  }

  /** Adds one to a started count of active keys below `cap`; false otherwise. */
  async addKey(name: string, cap: number): Promise<boolean> {
    return this.update(
      name,
      'SET activeKeys = activeKeys + :one',
      { ':one': 1, ':cap': cap },
      'activeKeys < :cap',
    );
  }

  /** Takes one from a started count of active keys above zero (nothing otherwise). */
  async removeKey(name: string): Promise<void> {
    await this.update(
      name,
      'SET activeKeys = activeKeys - :one',
      { ':one': 1, ':zero': 0 },
      'activeKeys > :zero',
    );
  }

  /** Counts one more owner of the project (from none when it had no count). */
  async addOwner(name: string): Promise<boolean> {
    return this.update(name, 'SET owners = if_not_exists(owners, :zero) + :one', { ':zero': 0, ':one': 1 });
  }

  /** Counts one owner fewer, only while two or more are counted: the last one stays. */
  async takeOwner(name: string): Promise<boolean> {
    return this.update(name, 'SET owners = owners - :one', { ':one': 1, ':two': 2 }, 'owners >= :two');
  }

  /** An update of an existing project, under `condition` too when given; false when a condition fails. */
  private async update(
    name: string,
    expression: string,
    values: Record<string, unknown> | undefined,
    condition?: string,
  ): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { name },
          UpdateExpression: expression,
          ConditionExpression: `attribute_exists(#name)${condition ? ` AND ${condition}` : ''}`,
          ExpressionAttributeNames: {
            '#name': 'name',
            ...(expression.includes('#plan') ? { '#plan': 'plan' } : {}),
          },
          ...(values ? { ExpressionAttributeValues: values } : {}),
        }),
      ),
    );
  }
}
