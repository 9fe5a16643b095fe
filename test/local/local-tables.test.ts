import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { PETS_TABLE, PROJECT_MEMBERS_TABLE } from '../../lambda/store/table-schema';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local/embedded-dynamodb';
import {
  createTableInput,
  ensureLocalTables,
  LOCAL_TABLE_NAMES,
  LOCAL_TABLES,
  localStoreClient,
  waitForActiveTable,
} from '../../local/local-tables';
import { holdingTableName } from '../../local/table-upgrade';

/**
 * The local tables as `npm start` and every tool command find them (ensureLocalTables): created
 * when missing, rebuilt when an older release left other indexes, and, on a store that has them
 * all, asked about with one listing and one description each: once per tool command, its audit
 * entry's connection included (test/tools/audit-trail.test.ts).
 */

let store: EmbeddedDynamoDb;
let client: DynamoDBClient;
let documents: DynamoDBDocumentClient;
/** The commands `client` sent, by name. */
let sent: string[] = [];

beforeAll(async () => {
  store = await startEmbeddedDynamoDb({ port: 0 });
  client = localStoreClient(store.endpoint);
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize' },
  );
  documents = createDocumentClient(store.endpoint);
});
afterAll(async () => {
  documents.destroy();
  client.destroy();
  await store.close();
});

const count = (name: string) => sent.filter((command) => command === name).length;

async function indexNames(tableName: string): Promise<string[]> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  return (Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName ?? '').sort();
}

async function itemCount(tableName: string): Promise<number> {
  return (await documents.send(new ScanCommand({ TableName: tableName }))).Items?.length ?? 0;
}

describe('ensureLocalTables', () => {
  it('rebuilds a table an older release left, and finishes a rebuild cut short, keeping every item', async () => {
    // The pets table without today's indexes, with items.
    const pets = LOCAL_TABLE_NAMES.pets;
    await client.send(new CreateTableCommand(createTableInput({ ...PETS_TABLE, globalIndexes: [] }, pets)));
    await waitForActiveTable(client, pets);
    for (let id = 1; id <= 5; id++) {
      await documents.send(new PutCommand({ TableName: pets, Item: { id, name: `pet ${id}` } }));
    }
    // The members table's rebuild died after its items were held and the table deleted.
    const members = LOCAL_TABLE_NAMES.projectMembers;
    const held = holdingTableName(members);
    await client.send(
      new CreateTableCommand(createTableInput({ ...PROJECT_MEMBERS_TABLE, globalIndexes: [] }, held)),
    );
    await waitForActiveTable(client, held);
    await documents.send(new PutCommand({ TableName: held, Item: { project: 'p', person: 'a' } }));

    await ensureLocalTables(client);

    expect(await indexNames(pets)).toEqual(PETS_TABLE.globalIndexes.map((index) => index.indexName).sort());
    expect(await itemCount(pets)).toBe(5);
    expect(await indexNames(members)).toEqual(['person-project-index']);
    expect(await itemCount(members)).toBe(1);
    for (const [, tableName] of LOCAL_TABLES) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      expect([tableName, Table?.TableStatus]).toEqual([tableName, 'ACTIVE']);
    }
    await expect(client.send(new DescribeTableCommand({ TableName: held }))).rejects.toThrow();
  });

  it('asks a store that has every table with one listing and one description each, and changes nothing', async () => {
    const before = await itemCount(LOCAL_TABLE_NAMES.pets);
    sent = [];
    await ensureLocalTables(client);
    expect(count('ListTablesCommand')).toBe(1);
    expect(count('DescribeTableCommand')).toBe(LOCAL_TABLES.length);
    expect(sent).toHaveLength(1 + LOCAL_TABLES.length);
    expect(await itemCount(LOCAL_TABLE_NAMES.pets)).toBe(before);
  });
});
