import { Match } from 'aws-cdk-lib/assertions';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { ENVIRONMENT_NAMES } from '../../lib/config/environments';
import { synthEnvironment } from '../support/synth';
import { resourcesOfType, tableIdFromOutput, templateJson } from './template-queries';

/**
 * The exports the per-project domains stacks of earlier releases import (their names as
 * deployed): production keeps them until those stacks are deleted.
 */
const LEGACY_EXPORTS = [
  'ExportsOutputFnGetAttFirewallWebAcl5A849C4EArnE8099ED3',
  'ExportsOutputRefApiRestApiE35FEAFEEB37783B',
  'ExportsOutputRefApiRestApiDeploymentStageproduction65FF03D948950253',
];

/** The stack's own outputs, without the exports kept for other stacks. */
function ownOutputs(outputs: Record<string, unknown>): string[] {
  return Object.keys(outputs)
    .filter((output) => !LEGACY_EXPORTS.includes(output))
    .sort();
}

const SERVICE_TABLE_OUTPUTS = [
  'PetsTableName',
  'ApiKeysTableName',
  'ProjectsTableName',
  'RateLimitsTableName',
  'IdempotencyTableName',
  'CustomDomainsTableName',
  'ConsoleSessionsTableName',
  'ProjectMembersTableName',
  'InvitationsTableName',
  'AuditLogTableName',
  'PersonalTokensTableName',
];

describe.each(ENVIRONMENT_NAMES)('the %s stack', (name) => {
  const template = synthEnvironment(name);
  const tableOutputs = SERVICE_TABLE_OUTPUTS;

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
    expect(ownOutputs(templateJson(template).Outputs)).toEqual(
      ['BaseUrl', STACK_OUTPUTS.selfServiceProjectCap, ...tableOutputs].sort(),
    );
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
    expect(ownOutputs(templateJson(template).Outputs)).toEqual(Object.values(STACK_OUTPUTS).sort());
  });

  test('production keeps the exports the old domains stacks import, under their deployed names; staging has none', () => {
    const outputs = templateJson(synthEnvironment('production')).Outputs as Record<
      string,
      { Export?: { Name: string } }
    >;
    for (const name of LEGACY_EXPORTS) {
      expect(outputs[name]?.Export).toEqual({ Name: `AnimalStore-production:${name}` });
    }
    const staging = templateJson(synthEnvironment('staging')).Outputs as Record<string, { Export?: unknown }>;
    expect(Object.values(staging).filter((output) => output.Export)).toEqual([]);
  });
});
