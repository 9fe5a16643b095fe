import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ROUTES } from '../../../lambda/api/routes';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { ApiFunction } from '../../../lib/constructs/api-function';
import { synthEnvironment } from '../../support/synth';
import { referencedId, resource, resourcesOfType, roleIdOfFunction } from '../template-queries';

describe('API functions', () => {
  const staging = synthEnvironment('staging');
  const production = synthEnvironment('production');
  const functions = Object.values(resourcesOfType(staging, 'AWS::Lambda::Function'));

  test('there is one function per route plus the authorizer', () => {
    expect(functions).toHaveLength(ROUTES.length + 1);
    expect(functions).toHaveLength(5);
  });

  test('every function runs Node.js 22 on ARM64 with handler `handler`', () => {
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
    }
  });

  test('every function has a 10 s timeout and active tracing', () => {
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({ Timeout: 10, TracingConfig: { Mode: 'Active' } });
    }
  });

  test('memory comes from the environment configuration', () => {
    staging.allResourcesProperties('AWS::Lambda::Function', { MemorySize: 512 });
    production.allResourcesProperties('AWS::Lambda::Function', { MemorySize: 1024 });
  });

  test.each([
    ['staging', 14, 'Delete'],
    ['production', 180, 'Retain'],
  ] as const)('%s: each function logs to its own log group kept %i days', (name, days, deletionPolicy) => {
    const template = synthEnvironment(name);
    const groups = Object.values(resourcesOfType(template, 'AWS::Lambda::Function')).map((fn) =>
      referencedId((fn.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup),
    );
    expect(new Set(groups).size).toBe(ROUTES.length + 1);
    for (const group of groups) {
      const logGroup = resource(template, group);
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays).toBe(days);
      expect(logGroup.DeletionPolicy).toBe(deletionPolicy);
    }
  });

  test.each(['staging', 'production'] as const)(
    "%s: each role may write only to its function's own log group, with no managed policy",
    (name) => {
      const template = synthEnvironment(name);
      for (const [id, fn] of Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'))) {
        const role = resource(template, roleIdOfFunction(template, id));
        const logGroup = referencedId((fn.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup);
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
        expect(role.Properties.Policies).toEqual([
          {
            PolicyName: 'logs',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
                  Resource: { 'Fn::GetAtt': [logGroup, 'Arn'] },
                },
              ],
            },
          },
        ]);
      }
    },
  );

  test('binding indexes without naming one fails, naming the variable and the fix', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test');
    const fn = new ApiFunction(stack, 'Fn', { handlerModule: 'list-pets' });
    const table = new Table(stack, 'Table', { partitionKey: { name: 'id', type: AttributeType.STRING } });
    expect(() =>
      fn.bindTable({
        table,
        environmentVariable: RUNTIME_ENV.petsTable,
        actions: ['dynamodb:Query'],
        target: { indexes: [] },
      }),
    ).toThrow(/bindTable for PETS_TABLE_NAME targets indexes but names none: list the indexes/);
  });

  test('binding a table with an action listed twice fails, naming the variable and the fix', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test');
    const fn = new ApiFunction(stack, 'Fn', { handlerModule: 'get-pet' });
    const table = new Table(stack, 'Table', { partitionKey: { name: 'id', type: AttributeType.STRING } });
    expect(() =>
      fn.bindTable({
        table,
        environmentVariable: RUNTIME_ENV.rateLimitsTable,
        actions: ['dynamodb:GetItem', 'dynamodb:GetItem'],
        target: 'table',
      }),
    ).toThrow(/bindTable for RATE_LIMITS_TABLE_NAME lists an action twice .*list each action once/);
  });
});
