import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import type { TableDefinition } from '../../lambda/store/table-schema';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local/embedded-dynamodb';
import { createTableInput, localStoreClient, waitForActiveTable } from '../../local/local-tables';
import { upgradeLocalTable } from '../../local/table-upgrade';

const OLD: TableDefinition = {
  logicalName: 'Things',
  partitionKey: { name: 'id', type: 'N' },
  globalIndexes: [
    {
      indexName: 'colour-id-index',
      partitionKey: { name: 'colour', type: 'S' },
      sortKey: { name: 'id', type: 'N' },
    },
  ],
};
const NEW: TableDefinition = {
  ...OLD,
  globalIndexes: [
    {
      indexName: 'owner-id-index',
      partitionKey: { name: 'owner', type: 'S' },
      sortKey: { name: 'id', type: 'N' },
    },
  ],
};

let store: EmbeddedDynamoDb;
let client: DynamoDBClient;
let documents: DynamoDBDocumentClient;

beforeAll(async () => {
  store = await startEmbeddedDynamoDb({ port: 0 });
  client = localStoreClient(store.endpoint);
  documents = createDocumentClient(store.endpoint);
});
afterAll(async () => {
  documents.destroy();
  client.destroy();
  await store.close();
});

async function tableWith(definition: TableDefinition, name: string, items: number): Promise<void> {
  await client.send(new CreateTableCommand(createTableInput(definition, name)));
  await waitForActiveTable(client, name);
  for (let id = 1; id <= items; id++) {
    await documents.send(
      new PutCommand({ TableName: name, Item: { id, colour: 'red', owner: id % 2 ? 'a' : 'b' } }),
    );
  }
}

async function indexNames(name: string): Promise<string[]> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
  return (Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName ?? '');
}

describe('upgradeLocalTable', () => {
  it('rebuilds a table with other indexes, keeping every item, and the new index answers', async () => {
    await tableWith(OLD, 'things', 60);
    expect(await upgradeLocalTable(client, NEW, 'things')).toBe(60);
    expect(await indexNames('things')).toEqual(['owner-id-index']);
    const { Items } = await documents.send(new ScanCommand({ TableName: 'things' }));
    expect(Items).toHaveLength(60);
    const owned = await documents.send(
      new QueryCommand({
        TableName: 'things',
        IndexName: 'owner-id-index',
        KeyConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': 'a' },
      }),
    );
    expect(owned.Items).toHaveLength(30);
  });

  it('leaves a table that matches its definition alone, and is a no-op the second time', async () => {
    expect(await upgradeLocalTable(client, NEW, 'things')).toBeUndefined();
    expect(await upgradeLocalTable(client, NEW, 'missing-table')).toBeUndefined();
  });

  it('finishes a rebuild that was cut short after the old table was deleted', async () => {
    // As if the process died after copying to the holding table and deleting the original.
    await tableWith({ ...OLD, globalIndexes: [] }, 'cut-upgrading', 7);
    expect(await upgradeLocalTable(client, NEW, 'cut')).toBe(7);
    expect(await indexNames('cut')).toEqual(['owner-id-index']);
    const { Items } = await documents.send(new ScanCommand({ TableName: 'cut' }));
    expect(Items).toHaveLength(7);
  });

  it('finishes a rebuild that was cut short while copying to the holding table', async () => {
    await tableWith(OLD, 'half', 9);
    await tableWith({ ...OLD, globalIndexes: [] }, 'half-upgrading', 3);
    expect(await upgradeLocalTable(client, NEW, 'half')).toBe(9);
    const { Items } = await documents.send(new ScanCommand({ TableName: 'half' }));
    expect(Items).toHaveLength(9);
  });
});
