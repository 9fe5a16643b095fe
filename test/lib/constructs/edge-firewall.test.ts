import { Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { MAX_BODY_BYTES } from '../../../lambda/api/limits';
import { EdgeFirewall } from '../../../lib/constructs/edge-firewall';
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
});
