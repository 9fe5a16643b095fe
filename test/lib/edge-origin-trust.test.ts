import { Template } from 'aws-cdk-lib/assertions';
import { CONSOLE_API_PREFIX } from '../../lambda/api/console-routes';
import { ORIGIN_SECRET_HEADER } from '../../lambda/core/edge-request';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { floodLimitPerIp, MANAGED_RULE_GROUPS } from '../../lib/constructs/edge-firewall';
import { EDGE_PARAMETERS } from '../../lib/edge-stack';
import { productionWithEdge, synthEnvironment } from '../support/synth';
import {
  actionsOf,
  apiMethods,
  authorizerFunctionId,
  environmentOf,
  invokedFunctionId,
  resourcesOfType,
  statementsOfFunction,
  tableIdFromOutput,
  templateJson,
} from './template-queries';

/**
 * The service side of the edge's origin secret, in production's template where the edge
 * serves it: the authorizer reads exactly the secret's replica and the custom domains table,
 * and the regional WAF limits the edge's requests per viewer rather than per CloudFront address.
 */

// Production as the edge serves it: the template the other tests share (test/support/synth.ts).
const template = productionWithEdge();
const authorizer = authorizerFunctionId(template);

function ssmParameterId(name: string): string {
  const found = Object.entries(templateJson(template).Parameters ?? {}).find(
    ([, parameter]) => parameter.Type === 'AWS::SSM::Parameter::Value<String>' && parameter.Default === name,
  );
  if (!found) throw new Error(`No SSM parameter ${name}`);
  return found[0];
}
const secretArn = { Ref: ssmParameterId(EDGE_PARAMETERS.originSecretArn) };
/** The secret's value as CloudFormation resolves it at deploy: a dynamic reference, never the value. */
const secretReference = {
  'Fn::Join': ['', ['{{resolve:secretsmanager:', secretArn, ':SecretString:::}}']],
};

interface Rule {
  Name: string;
  Priority: number;
  Statement: { RateBasedStatement?: Record<string, unknown> };
}
function rulesOf(tpl: Template): Rule[] {
  const [acl] = Object.values(resourcesOfType(tpl, 'AWS::WAFv2::WebACL'));
  return (acl?.Properties as { Rules: Rule[] }).Rules;
}

const edgeHeader = {
  ByteMatchStatement: {
    FieldToMatch: { SingleHeader: { Name: ORIGIN_SECRET_HEADER } },
    PositionalConstraint: 'EXACTLY',
    SearchString: secretReference,
    TextTransformations: [{ Priority: 0, Type: 'NONE' }],
  },
};

describe('the authorizer behind the edge', () => {
  test("its environment names the secret's replica (from SSM at deploy) and the custom domains table", () => {
    expect(environmentOf(template, authorizer)).toMatchObject({
      [RUNTIME_ENV.edgeOriginSecretArn]: secretArn,
      [RUNTIME_ENV.customDomainsTable]: { Ref: tableIdFromOutput(template, 'CustomDomainsTableName') },
    });
  });

  test('it may read exactly that secret, and GetItem on the custom domains table, nothing more', () => {
    const statements = statementsOfFunction(template, authorizer);
    const secrets = statements.filter((statement) =>
      actionsOf(statement).some((a) => a.startsWith('secretsmanager:')),
    );
    expect(secrets).toEqual([
      { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: secretArn },
    ]);
    const domainsTable = tableIdFromOutput(template, 'CustomDomainsTableName');
    const onDomains = statements.filter((statement) =>
      JSON.stringify(statement.Resource).includes(domainsTable),
    );
    expect(onDomains.flatMap(actionsOf)).toEqual(['dynamodb:GetItem']);
  });

  test('the console function reads exactly that secret too (it counts sign-ins per viewer through its distribution)', () => {
    const consoleMethod = apiMethods(template).find((method) => method.path.startsWith(CONSOLE_API_PREFIX));
    const consoleFunction = invokedFunctionId((consoleMethod?.props.Integration as { Uri: unknown }).Uri);
    expect(environmentOf(template, consoleFunction)).toMatchObject({
      [RUNTIME_ENV.edgeOriginSecretArn]: secretArn,
    });
    const secrets = statementsOfFunction(template, consoleFunction).filter((statement) =>
      actionsOf(statement).some((a) => a.startsWith('secretsmanager:')),
    );
    // And its sign-in client's secret, in a policy of its own (test/lib/console-identity.test.ts).
    expect(secrets).toEqual([
      { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: secretArn },
      {
        Action: 'secretsmanager:GetSecretValue',
        Effect: 'Allow',
        Resource: { Ref: expect.stringMatching(/^ConsoleIdentityClientSecret/) },
      },
    ]);
  });

  test('without the edge (staging), neither the secret nor the domains table', () => {
    const staging = synthEnvironment('staging');
    const id = authorizerFunctionId(staging);
    expect(environmentOf(staging, id)).not.toHaveProperty(RUNTIME_ENV.edgeOriginSecretArn);
    expect(environmentOf(staging, id)).not.toHaveProperty(RUNTIME_ENV.customDomainsTable);
    expect(JSON.stringify(statementsOfFunction(staging, id))).not.toContain('secretsmanager');
  });
});

describe('the regional WAF behind the edge', () => {
  const rules = rulesOf(template);
  const byName = (name: string) => rules.find((rule) => rule.Name === name);

  test("the per-IP flood rule leaves out requests carrying the secret (CloudFront's shared addresses)", () => {
    expect(byName('flood-per-ip')?.Statement.RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      Limit: floodLimitPerIp(),
      EvaluationWindowSec: 60,
      ScopeDownStatement: { NotStatement: { Statement: edgeHeader } },
    });
  });

  test('those requests are limited per viewer address instead, with the same limit and 429', () => {
    expect(byName('flood-per-viewer')).toMatchObject({
      Priority: 2,
      Statement: {
        RateBasedStatement: {
          AggregateKeyType: 'FORWARDED_IP',
          ForwardedIPConfig: { HeaderName: 'cloudfront-viewer-address', FallbackBehavior: 'NO_MATCH' },
          Limit: floodLimitPerIp(),
          EvaluationWindowSec: 60,
          ScopeDownStatement: edgeHeader,
        },
      },
      Action: {
        Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'too-many-requests' } },
      },
    });
  });

  test('the secret is in the template only as a reference, and the managed groups still come last', () => {
    expect(JSON.stringify(templateJson(template))).not.toMatch(/"SearchString":"[A-Za-z0-9]{64}"/);
    const managed = rules.filter((rule) => MANAGED_RULE_GROUPS.includes(rule.Name as never));
    expect(Math.min(...managed.map((rule) => rule.Priority))).toBe(3);
    expect(new Set(rules.map((rule) => rule.Priority)).size).toBe(rules.length);
  });

  test('without the edge, one per-IP flood rule with no scope-down', () => {
    const staging = rulesOf(synthEnvironment('staging'));
    expect(staging.map((rule) => rule.Name)).not.toContain('flood-per-viewer');
    expect(
      staging.find((rule) => rule.Name === 'flood-per-ip')?.Statement.RateBasedStatement,
    ).not.toHaveProperty('ScopeDownStatement');
  });
});
