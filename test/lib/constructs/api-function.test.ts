import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { buildSync } from 'esbuild';
import { ROUTES } from '../../../lambda/api/routes';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { ApiFunction, BUNDLE_OPTIONS } from '../../../lib/constructs/api-function';
import { USAGE_TOP_DESCRIPTION } from '../../../lib/constructs/usage-top-job';
import { REPO_ROOT } from '../../support/processes';
import { synthEnvironment, testApp } from '../../support/synth';
import { referencedId, resource, resourcesOfType, roleIdOfFunction } from '../template-queries';

describe('API functions', () => {
  const staging = synthEnvironment('staging');
  const production = synthEnvironment('production');
  /** The API's functions: every one but the daily usage ranking's (test/lib/usage-top-job.test.ts). */
  const apiFunctions = (template: Template) =>
    Object.entries(resourcesOfType(template, 'AWS::Lambda::Function')).filter(
      ([, fn]) => fn.Properties.Description !== USAGE_TOP_DESCRIPTION,
    );
  const functions = apiFunctions(staging).map(([, fn]) => fn);
  // One per route, the authorizer and the catch-all.
  const functionCount = ROUTES.length + 2;

  test('there is one function per route plus the authorizer and the catch-all', () => {
    expect(functions).toHaveLength(functionCount);
    expect(functions).toHaveLength(6);
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
    const groups = apiFunctions(template).map(([, fn]) =>
      referencedId((fn.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup),
    );
    expect(new Set(groups).size).toBe(functionCount);
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

  test('bundles in the synth process, byte for byte what esbuild gives the entry alone', () => {
    const app = testApp({ 'aws:cdk:bundling-stacks': ['**'] });
    const stack = new Stack(app, 'Bundled');
    new ApiFunction(stack, 'Fn', { handlerModule: 'get-pet' });
    const assembly = app.synth();
    const [fn] = Object.values(resourcesOfType(Template.fromStack(stack), 'AWS::Lambda::Function'));
    const hash = String((fn?.Properties.Code as { S3Key: string }).S3Key).replace(/\.zip$/, '');
    const { outputFiles } = buildSync({
      ...BUNDLE_OPTIONS,
      external: [],
      entryPoints: [path.join(REPO_ROOT, 'lambda', 'handlers', 'get-pet.ts')],
      outfile: path.join(REPO_ROOT, 'cdk.out', 'alone', 'index.js'),
      write: false,
      absWorkingDir: REPO_ROOT,
    });
    const staged = readFileSync(path.join(assembly.directory, `asset.${hash}`, 'index.js'));
    expect(staged.equals(Buffer.from(outputFiles[0]?.contents ?? []))).toBe(true);
  });

  test('a handler module that does not exist fails synth, naming the file', () => {
    const stack = new Stack(testApp(), 'Test');
    expect(() => new ApiFunction(stack, 'Fn', { handlerModule: 'no-such-handler' })).toThrow(
      'ApiFunction Fn: lambda/handlers/no-such-handler.ts does not exist; write the handler module.',
    );
  });

  test('binding indexes without naming one fails, naming the variable and the fix', () => {
    const stack = new Stack(testApp(), 'Test');
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
    const stack = new Stack(testApp(), 'Test');
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
