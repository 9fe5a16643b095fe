import { Match } from 'aws-cdk-lib/assertions';
import {
  API_KEYS_TABLE,
  keyAttributes,
  PETS_TABLE,
  RATE_LIMITS_TABLE,
  type TableDefinition,
} from '../../../lambda/store/table-schema';
import { synthEnvironment } from '../../support/synth';
import { resource, resourcesOfType, tableIdFromOutput } from '../template-queries';

const TABLES: [string, TableDefinition][] = [
  ['PetsTableName', PETS_TABLE],
  ['ApiKeysTableName', API_KEYS_TABLE],
  ['RateLimitsTableName', RATE_LIMITS_TABLE],
];

function keySchema(partitionKey: string, sortKey?: string) {
  return [
    { AttributeName: partitionKey, KeyType: 'HASH' },
    ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' }] : []),
  ];
}

describe('data tables', () => {
  const staging = synthEnvironment('staging');
  const production = synthEnvironment('production');

  test('there are exactly the tables of the schema', () => {
    staging.resourceCountIs('AWS::DynamoDB::Table', TABLES.length);
  });

  test.each(TABLES)('%s: key schema and attribute types come from the table schema', (output, definition) => {
    const table = resource(staging, tableIdFromOutput(staging, output));
    expect(table.Properties.KeySchema).toEqual(
      keySchema(definition.partitionKey.name, definition.sortKey?.name),
    );
    const expected = keyAttributes(definition).map((a) => ({ AttributeName: a.name, AttributeType: a.type }));
    expect(table.Properties.AttributeDefinitions).toEqual(expect.arrayContaining(expected));
    expect(table.Properties.AttributeDefinitions).toHaveLength(expected.length);
  });

  test.each(TABLES)(
    '%s: every index of the schema, with its sort key and ALL projection',
    (output, definition) => {
      const table = resource(staging, tableIdFromOutput(staging, output));
      const expected = definition.globalIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index.partitionKey.name, index.sortKey.name),
        Projection: { ProjectionType: 'ALL' },
      }));
      expect(table.Properties.GlobalSecondaryIndexes ?? []).toEqual(expected);
    },
  );

  test('the pets table has its two indexes (the schema is not empty by accident)', () => {
    const table = resource(staging, tableIdFromOutput(staging, 'PetsTableName'));
    expect((table.Properties.GlobalSecondaryIndexes as unknown[]).length).toBe(2);
  });

  test('rate-limit counters expire through DynamoDB TTL on expiresAt', () => {
    const table = resource(staging, tableIdFromOutput(staging, 'RateLimitsTableName'));
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  test.each(TABLES)('%s: TTL exactly as the table schema says', (output, definition) => {
    const table = resource(staging, tableIdFromOutput(staging, output));
    const ttl = definition.timeToLiveAttribute;
    expect(table.Properties.TimeToLiveSpecification).toEqual(
      ttl ? { AttributeName: ttl, Enabled: true } : undefined,
    );
  });

  test('every table is on-demand, with point-in-time recovery and AWS-managed encryption', () => {
    for (const table of Object.values(resourcesOfType(staging, 'AWS::DynamoDB::Table'))) {
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
      expect(table.Properties.ProvisionedThroughput).toBeUndefined();
    }
  });

  test('production tables are retained and deletion-protected', () => {
    production.allResources('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  test('staging tables are destroyed with the stack and not deletion-protected', () => {
    staging.allResources('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });
});
