import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import {
  STALE_TENANT_CLEANUP_ACTIONS,
  STALE_TENANT_CLEANUP_TIMEOUT,
  StaleTenantCleanup,
} from '../../lib/constructs/stale-tenant-cleanup';
import { EDGE_PARAMETERS } from '../../lib/edge-stack';
import { productionWithEdge, synthEnvironment, testApp } from '../support/synth';
import {
  actionsOf,
  cloudFrontArn,
  environmentOf,
  resource,
  resourcesOfType,
  statementsOfFunction,
  tableIdFromOutput,
  templateJson,
} from './template-queries';

/** The stale-tenant cleanup as production deploys it where the edge serves it. */

const template = productionWithEdge();
/** The cleanup's rules (the daily usage ranking has a rule of its own: test/lib/usage-top-job.test.ts). */
const cleanupRules = (tpl: typeof template) =>
  Object.values(resourcesOfType(tpl, 'AWS::Events::Rule')).filter(
    (rule) => rule.Properties.Description === 'Runs the stale-tenant cleanup',
  );
const rules = cleanupRules(template);
const cleanupFunctionId = (() => {
  const target = (rules[0]?.Properties.Targets as { Arn: unknown }[] | undefined)?.[0];
  const found = JSON.stringify(target?.Arn ?? {}).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/);
  return found?.[1] ?? 'none';
})();
const customDomainsTable = tableIdFromOutput(template, 'CustomDomainsTableName');

function ssmParameterId(name: string): string {
  const found = Object.entries(templateJson(template).Parameters ?? {}).find(
    ([, parameter]) => parameter.Type === 'AWS::SSM::Parameter::Value<String>' && parameter.Default === name,
  );
  if (!found) throw new Error(`No SSM parameter ${name}`);
  return found[0];
}

describe('the schedule', () => {
  test('one rule, every 15 minutes, enabled, invoking the cleanup function once per run (no retries)', () => {
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties).toMatchObject({
      ScheduleExpression: 'rate(15 minutes)',
      State: 'ENABLED',
      Targets: [
        expect.objectContaining({ RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 420 } }),
      ],
    });
    expect(resource(template, cleanupFunctionId).Type).toBe('AWS::Lambda::Function');
  });

  test('only EventBridge may invoke the function, and only from that rule', () => {
    const permissions = Object.values(resourcesOfType(template, 'AWS::Lambda::Permission')).filter(
      (permission) => JSON.stringify(permission.Properties.FunctionName).includes(cleanupFunctionId),
    );
    expect(permissions).toHaveLength(1);
    expect(permissions[0]?.Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [expect.stringMatching(/Schedule/), 'Arn'] },
    });
  });

  test('nothing reserved by default; 1 where the environment reserves concurrency (one run at a time)', () => {
    expect(resource(template, cleanupFunctionId).Properties).not.toHaveProperty(
      'ReservedConcurrentExecutions',
    );
    const reserved = productionWithEdge({ reservedConcurrency: 10 });
    expect(resource(reserved, cleanupFunctionId).Properties).toMatchObject({
      ReservedConcurrentExecutions: 1,
    });
  });

  test('runs within its timeout, told the table and the edge ids read from SSM at deploy', () => {
    expect(resource(template, cleanupFunctionId).Properties).toMatchObject({
      Timeout: STALE_TENANT_CLEANUP_TIMEOUT.toSeconds(),
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
    });
    expect(environmentOf(template, cleanupFunctionId)).toMatchObject({
      [RUNTIME_ENV.customDomainsTable]: { Ref: customDomainsTable },
      [RUNTIME_ENV.edgeDistributionId]: { Ref: ssmParameterId(EDGE_PARAMETERS.distributionId) },
      [RUNTIME_ENV.edgeConnectionGroupId]: { Ref: ssmParameterId(EDGE_PARAMETERS.connectionGroupId) },
    });
  });
});

describe('least privilege', () => {
  const granted = statementsOfFunction(template, cleanupFunctionId)
    .map((statement) => ({ actions: actionsOf(statement).sort(), resource: statement.Resource }))
    .filter(
      (grant) => !grant.actions.some((action) => action.startsWith('logs:') || action.startsWith('xray:')),
    );

  test('exactly: GetItem on the custom domains table, the tenant actions on tenants, the listing on *', () => {
    expect(granted).toEqual([
      { actions: ['dynamodb:GetItem'], resource: { 'Fn::GetAtt': [customDomainsTable, 'Arn'] } },
      {
        actions: [...STALE_TENANT_CLEANUP_ACTIONS.tenant].sort(),
        resource: cloudFrontArn('distribution-tenant/*'),
      },
      { actions: ['cloudfront:ListDistributionTenants'], resource: '*' },
    ]);
  });

  test('never creates tenants, asks for certificates, or writes the table', () => {
    const actions = granted.flatMap((grant) => grant.actions);
    for (const action of [
      'cloudfront:CreateDistributionTenant',
      'cloudfront:GetManagedCertificateDetails',
      'dynamodb:PutItem',
      'dynamodb:DeleteItem',
      'dynamodb:Scan',
    ]) {
      expect(actions).not.toContain(action);
    }
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });
});

describe('where the edge does not serve the environment', () => {
  test.each([
    ['staging', synthEnvironment('staging')],
    ['production without a platform address', productionWithEdge({ platformAddress: undefined })],
  ])('%s has no cleanup and no schedule', (_, tpl) => {
    expect(cleanupRules(tpl)).toEqual([]);
  });
});

describe('its properties', () => {
  const table = (stack: Stack) =>
    new Table(stack, 'Domains', { partitionKey: { name: 'name', type: AttributeType.STRING } });

  test("another period is the rule's rate", () => {
    const stack = new Stack(testApp(), 'Custom');
    new StaleTenantCleanup(stack, 'Cleanup', {
      tables: { customDomains: table(stack) },
      environmentName: 'test',
      distributionId: 'E1M2U3L4T5I6T7',
      connectionGroupId: 'cg_1',
      every: Duration.hours(1),
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
    });
  });

  test.each([
    ['under a minute', Duration.seconds(30)],
    ['not whole minutes', Duration.seconds(90)],
    ['over a day', Duration.days(2)],
  ])('refuses a period %s, naming it', (_, every) => {
    const stack = new Stack(testApp(), 'Custom');
    expect(
      () =>
        new StaleTenantCleanup(stack, 'Cleanup', {
          tables: { customDomains: table(stack) },
          environmentName: 'test',
          distributionId: 'E1M2U3L4T5I6T7',
          connectionGroupId: 'cg_1',
          every,
        }),
    ).toThrow(/StaleTenantCleanup Cleanup: every is .*; give whole minutes, from 1 minute to 1 day\./);
  });
});
