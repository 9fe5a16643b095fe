import { Match } from 'aws-cdk-lib/assertions';
import { DOMAINS_TABLE, keyAttributes } from '../../lambda/store/table-schema';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { ENVIRONMENT_NAMES } from '../../lib/config/environments';
import { DOMAIN_ENVIRONMENTS } from '../../lib/domains-stack';
import { synthEnvironment } from '../support/synth';
import {
  resource,
  resourcesOfType,
  type Statement,
  tableIdFromOutput,
  templateJson,
} from './template-queries';

const SERVICE_TABLE_OUTPUTS = [
  'PetsTableName',
  'ApiKeysTableName',
  'ProjectsTableName',
  'RateLimitsTableName',
  'IdempotencyTableName',
  'CustomDomainsTableName',
];

describe.each(ENVIRONMENT_NAMES)('the %s stack', (name) => {
  const template = synthEnvironment(name);
  const tableOutputs = DOMAIN_ENVIRONMENTS.includes(name)
    ? [...SERVICE_TABLE_OUTPUTS, 'DomainsTableName']
    : SERVICE_TABLE_OUTPUTS;

  test(`deploys one stage named "${name}"`, () => {
    template.resourceCountIs('AWS::ApiGateway::Stage', 1);
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: name });
  });

  test('outputs the base URL https://<api>.execute-api.<region>.<suffix>/<stage>/v1', () => {
    const [restApiId] = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::RestApi'));
    const [stageId] = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::Stage'));
    template.hasOutput('BaseUrl', {
      Value: {
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: restApiId },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
            '/',
            { Ref: stageId },
            '/v1',
          ],
        ],
      },
    });
  });

  test('names the spec placeholder the base URL stands for', () => {
    const placeholder = name === 'production' ? '{base_url}' : '{staging_base_url}';
    template.hasOutput('BaseUrl', {
      Description: Match.stringLikeRegexp(placeholder.replace(/[{}]/g, '\\$&')),
    });
  });

  test('has no other URL output that would lack the version prefix', () => {
    const outputs = Object.keys(templateJson(template).Outputs).sort();
    expect(outputs).toEqual(['BaseUrl', ...tableOutputs].sort());
  });

  test('outputs the name of every table, each once', () => {
    const tables = Object.keys(resourcesOfType(template, 'AWS::DynamoDB::Table')).sort();
    const outputs = tableOutputs.map((output) => tableIdFromOutput(template, output));
    expect(outputs.sort()).toEqual(tables);
    expect(tables).toHaveLength(tableOutputs.length);
  });
});

describe('the outputs the tools read', () => {
  test('the projects table is STACK_OUTPUTS.projectsTable', () => {
    expect(STACK_OUTPUTS.projectsTable).toBe('ProjectsTableName');
  });

  test('with a platform address, production has every output of STACK_OUTPUTS, and only those', () => {
    const template = synthEnvironment('production', {
      platformAddress: { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' },
    });
    expect(Object.keys(templateJson(template).Outputs).sort()).toEqual(Object.values(STACK_OUTPUTS).sort());
  });
});

describe('the domains table of the domains tool', () => {
  const production = synthEnvironment('production');
  const staging = synthEnvironment('staging');

  test('custom domains are production only, so production alone gets the table', () => {
    expect(DOMAIN_ENVIRONMENTS).toEqual(['production']);
  });

  test('production has it, keyed as the table schema says', () => {
    const table = resource(production, tableIdFromOutput(production, 'DomainsTableName'));
    expect(table.Properties.KeySchema).toEqual([
      { AttributeName: DOMAINS_TABLE.partitionKey.name, KeyType: 'HASH' },
    ]);
    expect(table.Properties.AttributeDefinitions).toEqual(
      keyAttributes(DOMAINS_TABLE).map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    );
    expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
    expect(table.Properties.TimeToLiveSpecification).toBeUndefined();
  });

  test('production keeps it like the other tables: on demand, PITR, encrypted, retained, deletion-protected', () => {
    const table = resource(production, tableIdFromOutput(production, 'DomainsTableName'));
    expect(table).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      },
    });
  });

  test('no function may touch it: only the operator tool uses it', () => {
    const tableId = tableIdFromOutput(production, 'DomainsTableName');
    const statements = Object.values(resourcesOfType(production, 'AWS::IAM::Policy')).flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) expect(JSON.stringify(statement.Resource)).not.toContain(tableId);
    for (const fn of Object.values(resourcesOfType(production, 'AWS::Lambda::Function'))) {
      expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain(tableId);
    }
  });

  test('staging has neither the table nor the output', () => {
    expect(templateJson(staging).Outputs.DomainsTableName).toBeUndefined();
    const keyedById = Object.values(resourcesOfType(staging, 'AWS::DynamoDB::Table')).filter((table) =>
      JSON.stringify(table.Properties.AttributeDefinitions).includes(
        JSON.stringify({ AttributeName: DOMAINS_TABLE.partitionKey.name, AttributeType: 'S' }),
      ),
    );
    expect(keyedById).toEqual([]);
  });
});
