import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { TableDefinition } from '../lambda/store/table-schema';
import { createTableInput } from './table-input';

/**
 * Brings a local table whose indexes differ from its definition (data written by an older
 * release) up to the definition, keeping every item. The embedded store cannot create or
 * delete an index on an existing table, so the table is rebuilt: its items are copied to a
 * holding table, the table is created anew, and the items are copied back. A run cut short
 * is finished by the next one: the holding table is only deleted once the copy is back.
 *
 * In AWS, index changes are CloudFormation deploys (doc/deploying.md); this is local mode's.
 */

/** Items per BatchWriteItem (DynamoDB's limit). */
const BATCH = 25;

async function describe(client: DynamoDBClient, tableName: string) {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/** The table an upgrade holds a table's items in while it rebuilds it. */
export const holdingTableName = (tableName: string): string => `${tableName}-upgrading`;

/** Index names of a live table, sorted, against the definition's. */
export function indexesMatch(
  live: { IndexName?: string }[] | undefined,
  definition: TableDefinition,
): boolean {
  const have = (live ?? []).map((index) => index.IndexName ?? '').sort();
  const want = definition.globalIndexes.map((index) => index.indexName).sort();
  return have.length === want.length && have.every((name, position) => name === want[position]);
}

async function waitActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 1_200; attempt++) {
    const table = await describe(client, tableName);
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every(
      (index) => index.IndexStatus === undefined || index.IndexStatus === 'ACTIVE',
    );
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Table ${tableName} did not become ACTIVE.`);
}

async function waitGone(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 1_200; attempt++) {
    if (!(await describe(client, tableName))) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Table ${tableName} was not deleted.`);
}

async function copyItems(documents: DynamoDBDocumentClient, from: string, to: string): Promise<number> {
  let copied = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(new ScanCommand({ TableName: from, ExclusiveStartKey: startKey }));
    const items = page.Items ?? [];
    for (let start = 0; start < items.length; start += BATCH) {
      let pending = items.slice(start, start + BATCH).map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const { UnprocessedItems } = await documents.send(
          new BatchWriteCommand({ RequestItems: { [to]: pending } }),
        );
        pending = (UnprocessedItems?.[to] ?? []) as typeof pending;
      }
    }
    copied += items.length;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return copied;
}

async function recreate(
  client: DynamoDBClient,
  definition: TableDefinition,
  tableName: string,
): Promise<void> {
  await client.send(new CreateTableCommand(createTableInput(definition, tableName)));
  await waitActive(client, tableName);
}

/**
 * Rebuilds `tableName` when its indexes differ from `definition`; resolves to the number
 * of items carried over, or undefined when the table needed nothing (or does not exist).
 */
export async function upgradeLocalTable(
  client: DynamoDBClient,
  definition: TableDefinition,
  tableName: string,
): Promise<number | undefined> {
  const holding = holdingTableName(tableName);
  const documents = DynamoDBDocumentClient.from(client);
  const live = await describe(client, tableName);
  const held = await describe(client, holding);
  if (!held) {
    if (!live || indexesMatch(live.GlobalSecondaryIndexes, definition)) return undefined;
    // The holding table needs only the key schema: no index, so nothing is lost in it.
    await recreate(client, { ...definition, globalIndexes: [] }, holding);
    await copyItems(documents, tableName, holding);
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    await waitGone(client, tableName);
  } else if (live && !indexesMatch(live.GlobalSecondaryIndexes, definition)) {
    // Cut short after the holding copy began: the holding table has every item that was
    // copied, and the old table still has them all, so copy again from the start.
    await copyItems(documents, tableName, holding);
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    await waitGone(client, tableName);
  }
  if (!(await describe(client, tableName))) await recreate(client, definition, tableName);
  const carried = await copyItems(documents, holding, tableName);
  await client.send(new DeleteTableCommand({ TableName: holding }));
  await waitGone(client, holding);
  return carried;
}
