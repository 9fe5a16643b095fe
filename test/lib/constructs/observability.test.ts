import { Match, Template } from 'aws-cdk-lib/assertions';
import { API_VERSION_PREFIX, CATCH_ALL, ROUTES } from '../../../lambda/api/routes';
import { warningThreshold } from '../../../lambda/core/self-service-settings';
import { METRICS_NAMESPACE, SELF_SERVICE_METRIC } from '../../../lambda/shared/observability';
import { TABLES } from '../../../lambda/store/table-schema';
import { DEFAULT_SELF_SERVICE } from '../../../lib/config/self-service';
import { ALARM_THRESHOLDS } from '../../../lib/constructs/observability';
import { type EnvironmentChanges, productionWithEdge, synthEnvironment } from '../../support/synth';
import { apiMethods, invokedFunctionId, resourcesOfType } from '../template-queries';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:animal-store-alarms';

/** Staging changed by `changes`, synthesized once per run (the API tests share reserved concurrency's). */
const synthWith = (changes: EnvironmentChanges): Template => synthEnvironment('staging', changes);

const template = synthEnvironment('production');
const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).map(
  (alarm) => alarm.Properties,
);
const catchAllFunctionId = invokedFunctionId(
  (
    apiMethods(template).find((m) => m.path === `${API_VERSION_PREFIX}${CATCH_ALL.proxyPath}`)?.props
      .Integration as { Uri: unknown }
  ).Uri,
);
const alarmNamed = (suffix: string) => {
  const found = alarms.find((alarm) => alarm.AlarmName === `AnimalStore-production-${suffix}`);
  if (!found) throw new Error(`No alarm ${suffix}`);
  return found;
};

describe('alarms', () => {
  test('the API 5xx rate: average of 5XXError over 5 minutes above 1 %', () => {
    const alarm = alarmNamed('api-5xx-rate');
    expect((alarm.Dimensions as { Name: string }[]).map((dimension) => dimension.Name)).toEqual([
      'ApiName',
      'Stage',
    ]);
    expect(alarm).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Average',
      Period: 300,
      Threshold: 0.01,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
    expect(ALARM_THRESHOLDS.apiServerErrorRate).toBe(0.01);
  });

  test('the API p99 latency above 2 s in 2 of 3 five-minute periods', () => {
    expect(alarmNamed('api-latency-p99')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Period: 300,
      Threshold: 2000,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
  });

  test.each([...ROUTES.map((route) => route.operationId as string), 'authorizer', 'usageTop'])(
    '%s: errors and throttles of its function, any within 5 minutes',
    (name) => {
      for (const [suffix, metricName] of [
        ['errors', 'Errors'],
        ['throttles', 'Throttles'],
      ]) {
        expect(alarmNamed(`${name}-${suffix}`)).toMatchObject({
          Namespace: 'AWS/Lambda',
          MetricName: metricName,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: expect.any(String) as string } }],
          Statistic: 'Sum',
          Period: 300,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
    },
  );

  test('catchAll: errors and throttles of its function, any within 5 minutes (nothing reserved: a throttle is the account running out)', () => {
    for (const [suffix, metricName] of [
      ['errors', 'Errors'],
      ['throttles', 'Throttles'],
    ]) {
      expect(alarmNamed(`${CATCH_ALL.name}-${suffix}`)).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: metricName,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: catchAllFunctionId } }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  test('with reserved concurrency, the catch-all alarms on errors only (junk floods are capped by design)', () => {
    const reserved = Object.values(
      resourcesOfType(synthWith({ reservedConcurrency: 10 }), 'AWS::CloudWatch::Alarm'),
    ).map((alarm) => alarm.Properties.AlarmName);
    expect(reserved).toContain(`AnimalStore-staging-${CATCH_ALL.name}-errors`);
    expect(reserved).not.toContain(`AnimalStore-staging-${CATCH_ALL.name}-throttles`);
  });

  test.each(TABLES.map((table) => [table.logicalName, table] as const))(
    '%s table: read and write throttle events of the table and each index, any within 5 minutes',
    (name, definition) => {
      const alarm = alarmNamed(`${name}-table-throttles`);
      expect(alarm).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      const metrics = alarm.Metrics as {
        Id: string;
        Expression?: string;
        MetricStat?: { Metric: unknown };
      }[];
      const stats = metrics.filter((metric) => metric.MetricStat);
      expect(stats).toHaveLength(2 * (1 + definition.globalIndexes.length));
      expect(JSON.stringify(stats)).toContain('ReadThrottleEvents');
      expect(JSON.stringify(stats)).toContain('WriteThrottleEvents');
      for (const index of definition.globalIndexes) expect(JSON.stringify(stats)).toContain(index.indexName);
      const expression = metrics.find((metric) => metric.Expression)?.Expression ?? '';
      for (const { Id } of stats) expect(expression).toContain(`FILL(${Id}, 0)`);
    },
  );

  test('there are no other alarms', () => {
    // The stage's two, errors and throttles of each operation, the authorizer, the catch-all and the
    // daily usage ranking, one per table.
    expect(alarms).toHaveLength(2 + 2 * (ROUTES.length + 3) + TABLES.length);
  });

  test('missing data never breaches an alarm', () => {
    for (const alarm of alarms) expect(alarm.TreatMissingData).toBe('notBreaching');
  });

  test('without a configured topic, alarms notify no one and no topic exists', () => {
    for (const alarm of alarms) {
      expect([alarm.AlarmActions, alarm.OKActions]).toEqual([undefined, undefined]);
    }
    template.resourceCountIs('AWS::SNS::Topic', 0);
  });
});

describe('notifications', () => {
  test('with alarmTopicArn, every alarm and its recovery notify that topic and none is created', () => {
    const stack = synthWith({ alarmTopicArn: TOPIC_ARN });
    stack.resourceCountIs('AWS::SNS::Topic', 0);
    stack.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [TOPIC_ARN],
      OKActions: [TOPIC_ARN],
    });
  });

  describe('with alarmEmail', () => {
    const stack = synthWith({ alarmEmail: 'oncall@example.com' });
    const [topicId] = Object.keys(resourcesOfType(stack, 'AWS::SNS::Topic'));

    test('a topic with the email subscribed receives every alarm and recovery', () => {
      stack.resourceCountIs('AWS::SNS::Topic', 1);
      stack.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'oncall@example.com',
        TopicArn: { Ref: topicId },
      });
      stack.allResourcesProperties('AWS::CloudWatch::Alarm', {
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
      });
    });

    test('the topic is encrypted with a rotated key CloudWatch may use', () => {
      const [keyId] = Object.keys(resourcesOfType(stack, 'AWS::KMS::Key'));
      stack.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
      stack.hasResourceProperties('AWS::KMS::Key', {
        EnableKeyRotation: true,
        KeyPolicy: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            }),
          ]),
        },
      });
    });

    test("the topic refuses plain HTTP and lets only this account's alarms publish", () => {
      stack.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sns:Publish',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: 'sns:Publish',
              Condition: Match.objectLike({
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              }),
            }),
          ]),
        },
      });
    });
  });
});

interface Widget {
  readonly type: string;
  readonly properties: {
    readonly title?: string;
    readonly metrics?: unknown[][];
    readonly alarms?: string[];
  };
}

/** The dashboard's widgets, with every CloudFormation reference in the body replaced by `<ref>`. */
function widgetsOf(stack: Template): Widget[] {
  const [dashboard] = Object.values(resourcesOfType(stack, 'AWS::CloudWatch::Dashboard'));
  const parts = (dashboard?.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const body = parts.map((part) => (typeof part === 'string' ? part : '<ref>')).join('');
  return (JSON.parse(body) as { widgets: Widget[] }).widgets;
}

/** Every metric line of every graph, as `namespace metric dimension value ...` (options left out). */
function graphLines(widgets: Widget[]): string[] {
  return widgets.flatMap((widget) =>
    (widget.properties.metrics ?? []).map((line) =>
      line.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(' '),
    ),
  );
}

describe('dashboard', () => {
  const widgets = widgetsOf(template);
  const lines = graphLines(widgets);

  test('one dashboard named after the stack', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const [dashboard] = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboard?.Properties.DashboardName).toBe('AnimalStore-production');
  });

  test('shows the state of every alarm', () => {
    const status = widgets.filter((widget) => widget.type === 'alarm');
    expect(status).toHaveLength(1);
    expect(status[0]?.properties.alarms).toHaveLength(alarms.length);
  });

  test.each(ROUTES.map((route) => route.operationId))(
    "shows %s's Requests and Latency from the service's metrics in this environment",
    (operation) => {
      for (const metric of ['Requests', 'Latency']) {
        expect(lines).toContainEqual(
          expect.stringMatching(
            new RegExp(`^AnimalStore ${metric} Environment production Operation ${operation} \\{`),
          ),
        );
      }
    },
  );

  test("shows the service's Errors by Code and RateLimited by Plan, whatever the values", () => {
    const expressions = lines.join('\n');
    expect(expressions).toContain(
      `SEARCH('{AnimalStore,Environment,Operation,Code} MetricName=\\"Errors\\" Environment=\\"production\\"', 'Sum', 300)`,
    );
    expect(expressions).toContain(
      `SEARCH('{AnimalStore,Environment,Operation,Plan} MetricName=\\"RateLimited\\" Environment=\\"production\\"', 'Sum', 300)`,
    );
  });

  test.each([
    ['AWS/ApiGateway', ['Count', '4XXError', '5XXError', 'Latency', 'IntegrationLatency']],
    ['AWS/Lambda', ['Errors', 'Throttles', 'Duration']],
    ['AWS/DynamoDB', ['ReadThrottleEvents', 'WriteThrottleEvents']],
  ])('shows the %s metrics the alarms watch', (namespace, metrics) => {
    for (const metric of metrics)
      expect(lines).toContainEqual(expect.stringMatching(`^${namespace} ${metric} `));
  });

  test('the staging dashboard reads the staging metrics', () => {
    const staging = graphLines(widgetsOf(synthEnvironment('staging'))).filter((line) =>
      line.includes('AnimalStore'),
    );
    expect(staging.length).toBeGreaterThan(0);
    for (const line of staging) expect(line).not.toContain('production');
  });
});

describe('the self-service alarm (issue 27)', () => {
  const named = (alarmsOf: Template, environment: string) =>
    Object.values(resourcesOfType(alarmsOf, 'AWS::CloudWatch::Alarm'))
      .map((alarm) => alarm.Properties)
      .find((alarm) => alarm.AlarmName === `AnimalStore-${environment}-self-service-projects`);

  test('alarms once the count of people’s projects reaches the warning share of the cap', () => {
    const cap = DEFAULT_SELF_SERVICE.projectCap;
    expect(named(productionWithEdge(), 'production')).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: SELF_SERVICE_METRIC,
      Dimensions: [{ Name: 'Environment', Value: 'production' }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: warningThreshold(cap),
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(warningThreshold(cap)).toBeLessThan(cap);
  });

  test('follows the cap given, and is absent where self-service is off or no console is', () => {
    const capped = productionWithEdge({ selfService: { enabled: true, projectCap: 50 } });
    expect(named(capped, 'production')?.Threshold).toBe(warningThreshold(50));
    const off = productionWithEdge({ selfService: { enabled: false, projectCap: 0 } });
    expect(named(off, 'production')).toBeUndefined();
    expect(named(template, 'production')).toBeUndefined();
  });
});
