import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { keyAttributes, type TableDefinition } from '../lambda/store/table-schema';

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
