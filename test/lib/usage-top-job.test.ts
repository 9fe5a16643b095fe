import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { USAGE_TOP_TIMEOUT, UsageTopJob } from '../../lib/constructs/usage-top-job';
import { topItemId } from '../../lambda/store/usage-top-store';
import { productionWithEdge, synthEnvironment, testApp } from '../support/synth';
import {
  actionsOf,
  environmentOf,
  referencedId,
  resource,
  resourcesOfType,
  statementsOfFunction,
  tableIdFromOutput,
  type templateJson,
} from './template-queries';

/** The daily ranking of the busiest projects (issue 29) as each environment deploys it. */

type Tpl = Parameters<typeof templateJson>[0];

function jobOf(template: Tpl) {
  const rules = Object.values(resourcesOfType(template, 'AWS::Events::Rule')).filter(
    (rule) => rule.Properties.Description === 'Runs the daily ranking of the busiest projects',
  );
  const target = (rules[0]?.Properties.Targets as { Arn: unknown }[] | undefined)?.[0];
  return { rules, functionId: target ? referencedId(target.Arn) : 'none' };
}

describe.each([
  ['staging', synthEnvironment('staging')],
  ['production with the edge', productionWithEdge()],
])('in %s', (_, template) => {
  const { rules, functionId } = jobOf(template);
  const projectsTable = tableIdFromOutput(template, 'ProjectsTableName');
  const rateLimitsTable = tableIdFromOutput(template, 'RateLimitsTableName');

  test('one rule, daily at 00:15 UTC, enabled, retried twice within 6 hours (a run is idempotent)', () => {
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties).toMatchObject({
      ScheduleExpression: 'cron(15 0 * * ? *)',
      State: 'ENABLED',
      Targets: [
        expect.objectContaining({
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 6 * 3600 },
        }),
      ],
    });
  });

  test('only EventBridge may invoke the function, and only from that rule', () => {
    const permissions = Object.values(resourcesOfType(template, 'AWS::Lambda::Permission')).filter(
      (permission) => JSON.stringify(permission.Properties.FunctionName).includes(functionId),
    );
    expect(permissions).toHaveLength(1);
    expect(permissions[0]?.Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [expect.stringMatching(/UsageTop/), 'Arn'] },
    });
  });

  test('Node 22 on ARM64 within its timeout, told both tables', () => {
    expect(resource(template, functionId).Properties).toMatchObject({
      Timeout: USAGE_TOP_TIMEOUT.toSeconds(),
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
    });
    expect(environmentOf(template, functionId)).toMatchObject({
      [RUNTIME_ENV.projectsTable]: { Ref: projectsTable },
      [RUNTIME_ENV.rateLimitsTable]: { Ref: rateLimitsTable },
    });
  });

  test('least privilege: Scan of the projects table; BatchGetItem on the rate-limit table, and PutItem of its `top` items only', () => {
    const granted = statementsOfFunction(template, functionId)
      .map((statement) => ({
        actions: actionsOf(statement).sort(),
        resource: statement.Resource,
        ...(statement.Condition ? { condition: statement.Condition } : {}),
      }))
      .filter((grant) => !grant.actions.some((action) => /^(logs|xray):/.test(action)));
    expect(granted).toEqual([
      { actions: ['dynamodb:Scan'], resource: { 'Fn::GetAtt': [projectsTable, 'Arn'] } },
      { actions: ['dynamodb:BatchGetItem'], resource: { 'Fn::GetAtt': [rateLimitsTable, 'Arn'] } },
      {
        actions: ['dynamodb:PutItem'],
        resource: { 'Fn::GetAtt': [rateLimitsTable, 'Arn'] },
        // The limiter's counters and self-service's places share the table: the job writes none.
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${topItemId('')}*`] } },
      },
    ]);
    // Never a scan of the counters, an index, or a write of a project.
    const onCounters = granted.filter((grant) => JSON.stringify(grant.resource).includes(rateLimitsTable));
    expect(onCounters.flatMap((grant) => grant.actions)).not.toContain('dynamodb:Scan');
    expect(JSON.stringify(granted)).not.toContain('/index/');
  });

  test('its errors and throttles alarm like every other function', () => {
    const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).filter((alarm) =>
      JSON.stringify(alarm.Properties.Dimensions ?? []).includes(functionId),
    );
    expect(alarms.map((alarm) => alarm.Properties.MetricName).sort()).toEqual(['Errors', 'Throttles']);
  });
});

describe('its properties', () => {
  const tables = (stack: Stack) => ({
    projects: new Table(stack, 'Projects', { partitionKey: { name: 'name', type: AttributeType.STRING } }),
    rateLimits: new Table(stack, 'Counters', {
      partitionKey: { name: 'counterId', type: AttributeType.STRING },
    }),
  });

  test('another time of the UTC day is the rule’s cron', () => {
    const stack = new Stack(testApp(), 'Custom');
    new UsageTopJob(stack, 'Top', {
      tables: tables(stack),
      environmentName: 'test',
      minutesAfterMidnight: 95,
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(35 1 * * ? *)',
    });
  });

  test.each([-1, 1.5, 1440])('refuses %s minutes after midnight, naming it', (minutes) => {
    const stack = new Stack(testApp(), 'Custom');
    expect(
      () =>
        new UsageTopJob(stack, 'Top', {
          tables: tables(stack),
          environmentName: 'test',
          minutesAfterMidnight: minutes,
        }),
    ).toThrow(`UsageTopJob Top: minutesAfterMidnight is ${minutes}; give whole minutes from 0 to 1439`);
  });
});
