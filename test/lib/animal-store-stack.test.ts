import { Match } from 'aws-cdk-lib/assertions';
import { ENVIRONMENT_NAMES } from '../../lib/config/environments';
import { synthEnvironment } from '../support/synth';
import { resourcesOfType, tableIdFromOutput, templateJson } from './template-queries';

describe.each(ENVIRONMENT_NAMES)('the %s stack', (name) => {
  const template = synthEnvironment(name);

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
    expect(outputs).toEqual(['ApiKeysTableName', 'BaseUrl', 'PetsTableName', 'RateLimitsTableName']);
  });

  test('outputs the name of every table, each once', () => {
    const tables = Object.keys(resourcesOfType(template, 'AWS::DynamoDB::Table')).sort();
    const outputs = ['PetsTableName', 'ApiKeysTableName', 'RateLimitsTableName'].map((output) =>
      tableIdFromOutput(template, output),
    );
    expect(outputs.sort()).toEqual(tables);
    expect(tables).toHaveLength(3);
  });
});
