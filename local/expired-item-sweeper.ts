import { type DynamoDBDocumentClient, DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { TableDefinition } from '../lambda/store/table-schema';

/**
 * The embedded store has no DynamoDB TTL: this sweeper stands in for it, deleting
 * items whose TTL attribute (epoch seconds) has passed, as AWS would.
 */
export async function sweepExpiredItems(
  client: DynamoDBDocumentClient,
  table: TableDefinition,
  tableName: string,
  nowMs: number,
): Promise<number> {
  const attribute = table.timeToLiveAttribute;
  if (!attribute) return 0;
  const keyNames = [table.partitionKey.name, ...(table.sortKey ? [table.sortKey.name] : [])];
  let deleted = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#ttl < :now',
        ExpressionAttributeNames: { '#ttl': attribute },
        ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const key = Object.fromEntries(keyNames.map((name) => [name, item[name]]));
      await client.send(new DeleteCommand({ TableName: tableName, Key: key }));
      deleted += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return deleted;
}

/** Sweeps every `intervalMs` until stopped; errors are logged, never fatal. */
export function startExpiredItemSweeper(
  client: DynamoDBDocumentClient,
  tables: readonly [TableDefinition, string][],
  intervalMs: number,
  clock: () => number,
): () => void {
  const sweep = async () => {
    for (const [table, name] of tables) {
      try {
        await sweepExpiredItems(client, table, name, clock());
      } catch (error) {
        console.error(
          `Sweeping expired items of ${name} failed: ${error instanceof Error ? error.message : error}`,
        );
      }
    }
  };
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
