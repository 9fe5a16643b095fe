import { Match } from 'aws-cdk-lib/assertions';
import {
  API_KEYS_TABLE,
  CONSOLE_SESSIONS_TABLE,
  CUSTOM_DOMAINS_TABLE,
  FORMER_PETS_TABLE,
  keyAttributes,
  PETS_TABLE,
  PETS_UPGRADE_STEPS,
  PROJECTS_TABLE,
  IDEMPOTENCY_TABLE,
  RATE_LIMITS_TABLE,
  type TableDefinition,
  TABLES,
} from '../../../lambda/store/table-schema';
import { PETS_UPGRADE_STEP_NUMBERS } from '../../../lib/config/environments';
import { synthEnvironment } from '../../support/synth';
import { resource, resourcesOfType, tableIdFromOutput } from '../template-queries';

const OUTPUTS: [string, TableDefinition][] = [
  ['PetsTableName', PETS_TABLE],
  ['ApiKeysTableName', API_KEYS_TABLE],
  ['ProjectsTableName', PROJECTS_TABLE],
  ['RateLimitsTableName', RATE_LIMITS_TABLE],
  ['IdempotencyTableName', IDEMPOTENCY_TABLE],
  ['CustomDomainsTableName', CUSTOM_DOMAINS_TABLE],
];

/** Every table of the schema by its logical name (the sessions table has no output: no tool reads it). */
const BY_NAME: [string, TableDefinition][] = TABLES.map((definition) => [definition.logicalName, definition]);

/** The logical id of a table in a template: it sits at Data/<logical name>. */
function tableIdOf(template: ReturnType<typeof synthEnvironment>, definition: TableDefinition): string {
  const pattern = new RegExp(`^Data${definition.logicalName}[0-9A-F]{8}$`);
  const ids = Object.keys(resourcesOfType(template, 'AWS::DynamoDB::Table')).filter((id) => pattern.test(id));
  expect([definition.logicalName, ids.length]).toEqual([definition.logicalName, 1]);
  return ids[0] as string;
}

/** Index names of the pets table of a template, sorted. */
function petsIndexes(template: ReturnType<typeof synthEnvironment>): string[] {
  const table = resource(template, tableIdFromOutput(template, 'PetsTableName'));
  return ((table.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[])
    .map((index) => index.IndexName)
    .sort();
}

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
    for (const definition of TABLES) tableIdOf(staging, definition);
    staging.resourceCountIs('AWS::DynamoDB::Table', TABLES.length);
  });

  test('every table sits at the same construct path, Data/<logical name>', () => {
    for (const [output, definition] of OUTPUTS) {
      const id = tableIdFromOutput(staging, output);
      expect([output, id]).toEqual([
        output,
        expect.stringMatching(new RegExp(`^Data${definition.logicalName}[0-9A-F]{8}$`)),
      ]);
    }
  });

  test("the keys table lists each project's keys through its project index", () => {
    const table = resource(staging, tableIdFromOutput(staging, 'ApiKeysTableName'));
    expect(
      (table.Properties.GlobalSecondaryIndexes as { IndexName: string }[]).map((i) => i.IndexName),
    ).toEqual(['project-key-index']);
  });

  test.each(BY_NAME)('%s: key schema and attribute types come from the table schema', (_, definition) => {
    const table = resource(staging, tableIdOf(staging, definition));
    expect(table.Properties.KeySchema).toEqual(
      keySchema(definition.partitionKey.name, definition.sortKey?.name),
    );
    const expected = keyAttributes(definition).map((a) => ({
      AttributeName: a.name,
      AttributeType: a.type,
    }));
    expect(table.Properties.AttributeDefinitions).toEqual(expect.arrayContaining(expected));
    expect(table.Properties.AttributeDefinitions).toHaveLength(expected.length);
  });

  test.each(BY_NAME)(
    '%s: every index of the schema, with its sort key and ALL projection',
    (_, definition) => {
      const table = resource(staging, tableIdOf(staging, definition));
      const expected = definition.globalIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index.partitionKey.name, index.sortKey.name),
        Projection: { ProjectionType: 'ALL' },
      }));
      expect(table.Properties.GlobalSecondaryIndexes ?? []).toEqual(expected);
    },
  );

  test('the pets table has its two project-scoped indexes (the schema is not empty by accident)', () => {
    expect(petsIndexes(staging)).toEqual(['project-id-index', 'project-status-id-index']);
  });

  test('rate-limit counters expire through DynamoDB TTL on expiresAt', () => {
    const table = resource(staging, tableIdFromOutput(staging, 'RateLimitsTableName'));
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  test('console sessions expire through DynamoDB TTL on expiresAt', () => {
    const table = resource(staging, tableIdOf(staging, CONSOLE_SESSIONS_TABLE));
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  test.each(BY_NAME)('%s: TTL exactly as the table schema says', (_, definition) => {
    const table = resource(staging, tableIdOf(staging, definition));
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

describe('the pets table upgrade, one index per deploy', () => {
  const names = (definition: TableDefinition) =>
    definition.globalIndexes.map((index) => index.indexName).sort();
  /** The deploys in order: the release before projects, each step, the final table. */
  const sequence: [string, string[]][] = [
    ['before projects', names(FORMER_PETS_TABLE)],
    ...PETS_UPGRADE_STEP_NUMBERS.map((step): [string, string[]] => [
      `step ${step}`,
      petsIndexes(synthEnvironment('production', { petsUpgradeStep: step })),
    ]),
    ['done', petsIndexes(synthEnvironment('production'))],
  ];

  test('each step deploys exactly the indexes the table schema gives it', () => {
    expect(sequence.map(([name, indexes]) => [name, indexes])).toEqual([
      ['before projects', ['collection-id-index', 'status-id-index']],
      ['step 1', ['collection-id-index', 'project-id-index', 'status-id-index']],
      ['step 2', ['collection-id-index', 'project-id-index', 'project-status-id-index', 'status-id-index']],
      ['step 3', ['collection-id-index', 'project-id-index', 'project-status-id-index']],
      ['done', ['project-id-index', 'project-status-id-index']],
    ]);
    for (const step of PETS_UPGRADE_STEP_NUMBERS) {
      expect(sequence[step]?.[1]).toEqual(
        names({ ...PETS_TABLE, globalIndexes: PETS_UPGRADE_STEPS[step].indexes }),
      );
    }
  });

  test('each deploy adds or removes exactly one index (what DynamoDB allows per update)', () => {
    for (let i = 1; i < sequence.length; i += 1) {
      const [, before] = sequence[i - 1] as [string, string[]];
      const [name, after] = sequence[i] as [string, string[]];
      const added = after.filter((index) => !before.includes(index));
      const removed = before.filter((index) => !after.includes(index));
      expect([name, added.length + removed.length]).toEqual([name, 1]);
    }
  });

  test('the table keeps its key and its logical id at every step (never replaced)', () => {
    const tables = [
      ...PETS_UPGRADE_STEP_NUMBERS.map((step) => synthEnvironment('production', { petsUpgradeStep: step })),
      synthEnvironment('production'),
    ].map((template) => {
      const id = tableIdFromOutput(template, 'PetsTableName');
      return [id, resource(template, id).Properties.KeySchema];
    });
    expect(new Set(tables.map((table) => JSON.stringify(table))).size).toBe(1);
  });
});
