import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import {
  API_KEYS_TABLE,
  DOMAINS_TABLE,
  keyAttributes,
  PETS_TABLE,
  RATE_LIMITS_TABLE,
  type TableDefinition,
} from '../lambda/store/table-schema';

/** Names of the tables in local mode. */
export const LOCAL_TABLE_NAMES = {
  pets: 'animal-store-pets',
  apiKeys: 'animal-store-api-keys',
  rateLimits: 'animal-store-rate-limits',
  domains: 'animal-store-domains',
} as const;

export const LOCAL_TABLES: readonly [TableDefinition, string][] = [
  [PETS_TABLE, LOCAL_TABLE_NAMES.pets],
  [API_KEYS_TABLE, LOCAL_TABLE_NAMES.apiKeys],
  [RATE_LIMITS_TABLE, LOCAL_TABLE_NAMES.rateLimits],
  [DOMAINS_TABLE, LOCAL_TABLE_NAMES.domains],
];

/** CreateTable input for a table definition: the same keys and indexes the CDK stack deploys. */
export function createTableInput(table: TableDefinition, tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributes(table).map(({ name, type }) => ({
      AttributeName: name,
      AttributeType: type,
    })),
    KeySchema: [
      { AttributeName: table.partitionKey.name, KeyType: 'HASH' },
      ...(table.sortKey ? [{ AttributeName: table.sortKey.name, KeyType: 'RANGE' as const }] : []),
    ],
    ...(table.globalIndexes.length > 0
      ? {
          GlobalSecondaryIndexes: table.globalIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: [
              { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
              { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          })),
        }
      : {}),
  };
}

/** Creates every table that does not exist yet; existing tables (and their data) are left alone. */
export async function ensureLocalTables(client: DynamoDBClient): Promise<void> {
  for (const [table, tableName] of LOCAL_TABLES) {
    try {
      await client.send(new DescribeTableCommand({ TableName: tableName }));
      continue;
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
    try {
      await client.send(new CreateTableCommand(createTableInput(table, tableName)));
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
    }
  }
}

/** A low-level client for a local DynamoDB-compatible store (its credentials are not checked). */
export function localStoreClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Creates the local tables that are missing on the store at `endpoint`. */
export async function ensureLocalTablesAt(endpoint: string): Promise<void> {
  const admin = localStoreClient(endpoint);
  try {
    await ensureLocalTables(admin);
  } finally {
    admin.destroy();
  }
}
