import { ACCESS_LOG_FIELDS, accessLogTemplate } from '../../../lib/constructs/api-stage-logs';
import { synthEnvironment } from '../../support/synth';
import { logGroupIdOfArn, referencedId, resource, resourcesOfType } from '../template-queries';

/** The template as a log line: every placeholder replaced by a value as API Gateway would write it. */
function sampleLine(template: string): Record<string, unknown> {
  return JSON.parse(
    template
      .replace(/\$context\.error\.messageString/g, '"Unauthorized \\"quoted\\""')
      .replace(/\$context\.[A-Za-z.]+/g, 'value'),
  ) as Record<string, unknown>;
}

describe('API access and execution logs', () => {
  const template = accessLogTemplate();

  test('the access log line is one JSON object with the fields an operator needs', () => {
    const line = sampleLine(template);
    expect(Object.keys(line)).toEqual(
      expect.arrayContaining([
        'requestId',
        'extendedRequestId',
        'ip',
        'caller',
        'requestTime',
        'httpMethod',
        'resourcePath',
        'path',
        'status',
        'protocol',
        'responseLength',
        'responseLatency',
        'integrationLatency',
        'integrationStatus',
        'authorizerError',
        'authorizerPrincipalId',
        'userAgent',
        'wafResponseCode',
        'errorMessage',
        'responseType',
      ]),
    );
    expect(line.errorMessage).toBe('Unauthorized "quoted"');
  });

  test('each field is the context variable it is named after', () => {
    expect(ACCESS_LOG_FIELDS).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      status: '$context.status',
      integrationStatus: '$context.integration.status',
      authorizerError: '$context.authorizer.error',
      wafResponseCode: '$context.wafResponseCode',
      responseType: '$context.error.responseType',
    });
  });

  test('never logs the Authorization header, the API key or its usage identifier', () => {
    expect(template).not.toMatch(/authorization/i);
    expect(template).not.toMatch(/apiKey/i);
    expect(template).not.toMatch(/\$input\.|\$method\.request\.header/);
  });

  describe.each([
    ['staging', 14, 'Delete'],
    ['production', 180, 'Retain'],
  ] as const)('the %s stage', (name, days, deletionPolicy) => {
    const stack = synthEnvironment(name);
    const [stage] = Object.values(resourcesOfType(stack, 'AWS::ApiGateway::Stage'));
    const settings = stage?.Properties.AccessLogSetting as { DestinationArn: unknown; Format: string };

    test(`writes the JSON access log to a log group of its own kept ${days} days`, () => {
      expect(settings.Format).toBe(template);
      const group = resource(stack, logGroupIdOfArn(settings.DestinationArn));
      expect(group.Type).toBe('AWS::Logs::LogGroup');
      expect(group.Properties.RetentionInDays).toBe(days);
      expect(group.DeletionPolicy).toBe(deletionPolicy);
      const functionGroups = Object.values(resourcesOfType(stack, 'AWS::Lambda::Function')).map((fn) =>
        referencedId((fn.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup),
      );
      expect(functionGroups).not.toContain(logGroupIdOfArn(settings.DestinationArn));
    });

    test('logs execution errors only, never request or response data', () => {
      expect(stage?.Properties.MethodSettings).toEqual([
        { ResourcePath: '/*', HttpMethod: '*', LoggingLevel: 'ERROR', DataTraceEnabled: false },
      ]);
    });

    test(`creates the execution log group API Gateway writes to, kept ${days} days, before the stage`, () => {
      const [restApiId] = Object.keys(resourcesOfType(stack, 'AWS::ApiGateway::RestApi'));
      const groups = Object.entries(resourcesOfType(stack, 'AWS::Logs::LogGroup')).filter(([, group]) =>
        JSON.stringify(group.Properties.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_'),
      );
      expect(groups).toHaveLength(1);
      const [groupId, group] = groups[0] ?? [];
      expect(group?.Properties).toMatchObject({
        LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: restApiId }, `/${name}`]] },
        RetentionInDays: days,
      });
      const [stageId] = Object.keys(resourcesOfType(stack, 'AWS::ApiGateway::Stage'));
      expect(stack.toJSON().Resources[stageId ?? ''].DependsOn).toContain(groupId);
    });

    test('leaves the account-wide CloudWatch role to the account stack', () => {
      stack.resourceCountIs('AWS::ApiGateway::Account', 0);
    });
  });
});
