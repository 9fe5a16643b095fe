import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { InvitationEmail, invitationSender } from '../../../lib/constructs/invitation-email';
import { productionWithEdge, synthEnvironment, TEST_PLATFORM } from '../../support/synth';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { resourcesOfType } from '../template-queries';

/**
 * Invitations' email in AWS (issue 27): the platform domain's SES identity with its DKIM records
 * in the platform zone, and a function's permission to send through it as the invitations' sender.
 */

/**
 * The construct in a stack of its own, built once for the tests that read it (a template is
 * immutable), without CDK's template validation: its WebAssembly compile was most of this
 * file's time, and it runs once per run over every stack the app deploys (test/support/synth.ts).
 */
const standalone = (() => {
  const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Mail', {
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  const email = new InvitationEmail(stack, 'InvitationEmail', { platform: TEST_PLATFORM });
  const fn = new LambdaFunction(stack, 'Console', {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => {}'),
  });
  email.grantSend(fn);
  return { template: Template.fromStack(stack), email };
})();

test('the identity is the platform domain, verified by Easy DKIM records CDK writes in the platform zone', () => {
  const { template } = standalone;
  template.resourceCountIs('AWS::SES::EmailIdentity', 1);
  template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: TEST_PLATFORM.domain });
  const records = Object.values(resourcesOfType(template, 'AWS::Route53::RecordSet'));
  expect(records).toHaveLength(3);
  for (const record of records) {
    expect(record.Properties).toMatchObject({ Type: 'CNAME', HostedZoneId: TEST_PLATFORM.hostedZoneId });
    expect(JSON.stringify(record.Properties?.Name)).toContain('DkimDNSTokenName');
  }
});

test('grantSend allows ses:SendEmail on that identity alone, from the invitations sender alone', () => {
  const { template, email } = standalone;
  expect(email.sender).toBe(`invitations@${TEST_PLATFORM.domain}`);
  template.hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: {
      Statement: Match.arrayWith([
        {
          Action: 'ses:SendEmail',
          Effect: 'Allow',
          Resource: {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                `:ses:eu-west-1:123456789012:identity/${TEST_PLATFORM.domain}`,
              ],
            ],
          },
          Condition: { StringEquals: { 'ses:FromAddress': invitationSender(TEST_PLATFORM.domain) } },
        },
      ]),
    },
  });
});

test('production with the console has the identity; staging, without a console, has none', () => {
  productionWithEdge().hasResourceProperties('AWS::SES::EmailIdentity', {
    EmailIdentity: TEST_PLATFORM.domain,
  });
  synthEnvironment('staging').resourceCountIs('AWS::SES::EmailIdentity', 0);
});

/** The functions of a template whose environment names INVITATION_SENDER, and the policies of their roles. */
function sendersOf(template: Template) {
  const functions = Object.entries(resourcesOfType(template, 'AWS::Lambda::Function')).filter(
    ([, fn]) =>
      (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.[
        RUNTIME_ENV.invitationSender
      ] !== undefined,
  );
  const sesStatements = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).flatMap((policy) =>
    (policy.Properties?.PolicyDocument as { Statement: { Action: unknown }[] }).Statement.filter(
      (statement) => JSON.stringify(statement.Action).includes('ses:'),
    ).map((statement) => ({ roles: policy.Properties?.Roles, statement })),
  );
  return { functions, sesStatements };
}

test('production: the console function alone has INVITATION_SENDER and may send as it, through the identity', () => {
  const { functions, sesStatements } = sendersOf(productionWithEdge());
  expect(functions.map(([id]) => id)).toEqual([expect.stringMatching(/^ConsoleFunction/)]);
  const [, consoleFunction] = functions[0]!;
  expect(
    (consoleFunction.Properties?.Environment as { Variables: Record<string, unknown> }).Variables[
      RUNTIME_ENV.invitationSender
    ],
  ).toBe(invitationSender(TEST_PLATFORM.domain));
  expect(sesStatements).toEqual([
    {
      roles: [{ Ref: (consoleFunction.Properties?.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] }],
      statement: {
        Action: 'ses:SendEmail',
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':ses:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              `:identity/${TEST_PLATFORM.domain}`,
            ],
          ],
        },
        Condition: { StringEquals: { 'ses:FromAddress': invitationSender(TEST_PLATFORM.domain) } },
      },
    },
  ]);
});

test('staging, without the identity, has neither the variable nor the permission: its invitations are link-only', () => {
  const { functions, sesStatements } = sendersOf(synthEnvironment('staging'));
  expect(functions).toEqual([]);
  expect(sesStatements).toEqual([]);
});
