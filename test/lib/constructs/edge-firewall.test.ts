import { Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { MAX_BODY_BYTES } from '../../../lambda/api/limits';
import { PLAN_NAMES, planCapacity } from '../../../lambda/core/plans';
import { EdgeFirewall, floodLimitPerIp, MANAGED_RULE_GROUPS } from '../../../lib/constructs/edge-firewall';
import { synthEnvironment } from '../../support/synth';
import { resourcesOfType } from '../template-queries';

interface WebAclProps {
  Rules: { Action: { Block: { CustomResponse: { CustomResponseBodyKey: string } } } }[];
  CustomResponseBodies: Record<string, { Content: string; ContentType: string }>;
}

const template = synthEnvironment('staging');

describe('edge firewall', () => {
  test('a regional web ACL allows by default', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    template.hasResourceProperties('AWS::WAFv2::WebACL', { Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
  });

  test('bodies over MAX_BODY_BYTES, or too large to inspect, are blocked with 413', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({
          Statement: {
            SizeConstraintStatement: {
              FieldToMatch: { Body: { OversizeHandling: 'MATCH' } },
              ComparisonOperator: 'GT',
              Size: MAX_BODY_BYTES,
              TextTransformations: [{ Priority: 0, Type: 'NONE' }],
            },
          },
          Action: {
            Block: { CustomResponse: { ResponseCode: 413, CustomResponseBodyKey: Match.anyValue() } },
          },
        }),
      ]),
    });
  });

  test('the 413 carries the Error body payload_too_large as JSON', () => {
    const [acl] = Object.values(resourcesOfType(template, 'AWS::WAFv2::WebACL'));
    if (!acl) throw new Error('No web ACL');
    const { Rules, CustomResponseBodies } = acl.Properties as unknown as WebAclProps;
    const key = Rules[0]?.Action.Block.CustomResponse.CustomResponseBodyKey ?? '';
    const body = CustomResponseBodies[key];
    expect(body?.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body?.Content ?? '')).toEqual({
      code: 'payload_too_large',
      message: expect.stringContaining(String(MAX_BODY_BYTES)),
      status: 413,
    });
  });

  test('the web ACL is associated with the API stage', () => {
    const [aclId] = Object.keys(resourcesOfType(template, 'AWS::WAFv2::WebACL'));
    const [stageId] = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::Stage'));
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [aclId, 'Arn'] },
      ResourceArn: { 'Fn::Join': ['', Match.arrayWith(['/stages/', { Ref: stageId }])] },
    });
  });

  test('a limit beyond what WAF inspects fails at synth, naming the value', () => {
    const stack = new Stack();
    const api = new RestApi(stack, 'Api');
    api.root.addMethod('GET', new MockIntegration());
    expect(
      () => new EdgeFirewall(stack, 'Firewall', { stage: api.deploymentStage, maxBodyBytes: 16_384 }),
    ).toThrow(/maxBodyBytes is 16384: use a whole number from 1 to 8192/);
  });

  test('an address sending more than twice the largest per-minute allowance in a minute gets 429 with Retry-After', () => {
    expect(
      floodLimitPerIp([
        { perMinute: 60, perDay: 1 },
        { perMinute: 5_000, perDay: 1 },
      ]),
    ).toBe(10_000);
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({
          Priority: 1,
          Statement: {
            RateBasedStatement: { AggregateKeyType: 'IP', Limit: floodLimitPerIp(), EvaluationWindowSec: 60 },
          },
          Action: {
            Block: {
              CustomResponse: {
                ResponseCode: 429,
                CustomResponseBodyKey: 'too-many-requests',
                ResponseHeaders: [{ Name: 'Retry-After', Value: '60' }],
              },
            },
          },
        }),
      ]),
    });
    const [acl] = Object.values(resourcesOfType(template, 'AWS::WAFv2::WebACL'));
    const bodies = (acl?.Properties as unknown as WebAclProps).CustomResponseBodies;
    expect(JSON.parse(bodies['too-many-requests']?.Content ?? '')).toMatchObject({
      code: 'rate_limited',
      status: 429,
    });
  });

  test("the flood limit is twice the largest per-minute any project may have (an agreed plan's ceiling included)", () => {
    const largest = Math.max(...PLAN_NAMES.map((plan) => planCapacity(plan).perMinute));
    expect(floodLimitPerIp()).toBe(2 * largest);
    expect(floodLimitPerIp()).toBe(10_000);
  });

  test('the AWS managed rule groups run after the body and flood rules', () => {
    const [acl] = Object.values(resourcesOfType(template, 'AWS::WAFv2::WebACL'));
    const rules = (acl?.Properties as { Rules: { Name: string; Priority: number; Statement: unknown }[] })
      .Rules;
    const managed = rules.filter((rule) => MANAGED_RULE_GROUPS.includes(rule.Name as never));
    expect(managed.map((rule) => rule.Statement)).toEqual(
      MANAGED_RULE_GROUPS.map((name) => ({ ManagedRuleGroupStatement: { VendorName: 'AWS', Name: name } })),
    );
    expect(Math.min(...managed.map((rule) => rule.Priority))).toBeGreaterThan(1);
  });
});
