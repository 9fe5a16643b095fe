import { type DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageTop, UsageTopPorts } from '../core/usage-top';
import type { UsageCounts } from '../core/usage-history';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { allPages, documentClient, storeCall } from './dynamodb-client';
import { USAGE_TOP_ID_PREFIX } from './table-schema';
import { batchGetCounters, dayCountsOf, projectDayId } from './usage-items';

/**
 * The busiest projects of a day in the rate-limit table (issue 29; doc/limits.md, "The busiest
 * projects"): the day counters read by key, 100 to a BatchGetItem, and one `top#<YYYY-MM-DD>`
 * item per day, which holds the ranking as lists (`byRequests`, `byRefusals`) and expires with
 * the day counters. The project list comes from the projects table, never from a scan of the
 * counters (a client's counter per address per day outnumbers the projects).
 */

/** The `top` item of a day. */
export function topItemId(day: string): string {
  return `${USAGE_TOP_ID_PREFIX}${day}`;
}

/** Every project's name: a Scan of the projects table that reads the names only. */
export class ProjectNameScan {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly projectsTable: string,
  ) {}

  async names(): Promise<string[]> {
    const items = await allPages((startKey) =>
      this.client.send(
        new ScanCommand({
          TableName: this.projectsTable,
          ProjectionExpression: '#name',
          ExpressionAttributeNames: { '#name': 'name' },
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    return items.map((item) => String(item.name)).sort();
  }
}

/** Every project's name (see {@link ProjectNameScan}). */
export function scanProjectNames(client: DynamoDBDocumentClient, projectsTable: string): Promise<string[]> {
  return new ProjectNameScan(client, projectsTable).names();
}

export class UsageTopStore implements UsageTopPorts {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly rateLimitsTable: string,
    /** The project list: a Scan of the projects table, or what the caller already has. */
    readonly projectNames: () => Promise<readonly string[]>,
  ) {}

  async dayTotals(projects: readonly string[], day: string): Promise<ReadonlyMap<string, UsageCounts>> {
    const byId = new Map(projects.map((project) => [projectDayId(project, day), project]));
    const items = await batchGetCounters(this.client, this.rateLimitsTable, [...byId.keys()]);
    const totals = new Map<string, UsageCounts>();
    for (const item of items) {
      const project = byId.get(String(item.counterId));
      if (project !== undefined) totals.set(project, dayCountsOf(item));
    }
    return totals;
  }

  async readTop(day: string): Promise<UsageTop | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(
        new GetCommand({ TableName: this.rateLimitsTable, Key: { counterId: topItemId(day) } }),
      ),
    );
    if (!Item) return undefined;
    return {
      day: Item.day,
      computedAt: Item.computedAt,
      projectsRead: Item.projectsRead,
      total: Item.total,
      byRequests: Item.byRequests,
      byRefusals: Item.byRefusals,
    } as UsageTop;
  }

  async writeTop(top: UsageTop, expiresAtSeconds: number): Promise<void> {
    await storeCall(() =>
      this.client.send(
        new PutCommand({
          TableName: this.rateLimitsTable,
          Item: { counterId: topItemId(top.day), ...top, expiresAt: expiresAtSeconds },
        }),
      ),
    );
  }
}

/** The daily job's store, from the environment the stack sets: the counters and the projects tables. */
export function usageTopStoreFromEnv(): UsageTopStore {
  const projects = new ProjectNameScan(documentClient(), requireEnv(RUNTIME_ENV.projectsTable));
  return new UsageTopStore(documentClient(), requireEnv(RUNTIME_ENV.rateLimitsTable), () => projects.names());
}
