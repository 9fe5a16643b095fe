import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ACCOUNT_STACK_NAME, AccountStack } from '../../lib/account-stack';
import { addAnimalStoreStacks } from '../../lib/animal-store-app';
import { ENVIRONMENT_NAMES, environmentConfigs } from '../../lib/config/environments';
import { API_GATEWAY_LOGGING_ACTIONS } from '../../lib/constructs/api-gateway-account';
import { testApp } from '../support/synth';
import { referencedId, resource, resourcesOfType } from './template-queries';

describe('the account stack', () => {
  const template = Template.fromStack(new AccountStack(testApp(), ACCOUNT_STACK_NAME));

  test("sets API Gateway's CloudWatch role for the account and region, once", () => {
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    const [account] = Object.values(resourcesOfType(template, 'AWS::ApiGateway::Account'));
    const role = resource(template, referencedId(account?.Properties.CloudWatchRoleArn));
    expect(role.Type).toBe('AWS::IAM::Role');
  });

  test('the role is for API Gateway, may only write logs in this account and region, and has no managed policy', () => {
    const [role] = Object.values(resourcesOfType(template, 'AWS::IAM::Role'));
    expect(role?.Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [
        { Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' }, Action: 'sts:AssumeRole' },
      ],
    });
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role?.Properties.Policies).toEqual([
      {
        PolicyName: 'logs',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              // Sorted by the minimizePolicies flag.
              Action: [...API_GATEWAY_LOGGING_ACTIONS.logGroups].sort(),
              Resource: {
                'Fn::Join': [
                  '',
                  [
                    'arn:',
                    { Ref: 'AWS::Partition' },
                    ':logs:',
                    { Ref: 'AWS::Region' },
                    ':',
                    { Ref: 'AWS::AccountId' },
                    ':log-group:*',
                  ],
                ],
              },
            },
            // DescribeLogGroups takes no resource: on the log groups' ARN it would never be allowed.
            { Effect: 'Allow', Action: 'logs:DescribeLogGroups', Resource: '*' },
          ],
        },
      },
    ]);
  });

  test('role and setting stay when the stack is deleted: other APIs of the account log through them', () => {
    for (const type of ['AWS::IAM::Role', 'AWS::ApiGateway::Account']) {
      for (const found of Object.values(resourcesOfType(template, type))) {
        expect([found.DeletionPolicy, found.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
      }
    }
  });
});

describe('the app', () => {
  const app = testApp();
  const configs = environmentConfigs({});
  const stacks = addAnimalStoreStacks(app, { environments: ENVIRONMENT_NAMES.map((name) => configs[name]) });

  test('has one account stack and one stack per environment', () => {
    expect(app.node.children.filter(Stack.isStack).map((stack) => stack.stackName)).toEqual([
      ACCOUNT_STACK_NAME,
      'AnimalStore-staging',
      'AnimalStore-production',
    ]);
  });

  test('deploys the account stack before any environment (access logging needs its role)', () => {
    for (const stack of stacks) {
      expect(stack.dependencies.map((dependency) => dependency.stackName)).toEqual([ACCOUNT_STACK_NAME]);
    }
  });
});
