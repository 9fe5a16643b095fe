import {
  AccountSuspendedException,
  MailFromDomainNotVerifiedException,
  MessageRejected,
  NotFoundException,
  SendEmailCommand,
  SendingPausedException,
  SESv2Client,
  TooManyRequestsException,
} from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import type { InvitationMessage } from '../../../lambda/core/invitations';
import { sesInvitationMailer } from '../../../lambda/store/ses-invitation-mailer';
import { captureOutput } from '../../support/capture-output';

// These tests read the log (made on first use, so set before any is written).
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';

/**
 * Invitations emailed through SES v2 (issue 27): SES cannot run here, so the client is mocked at
 * the SDK boundary with answers shaped like the API's (SendEmailResponse, its documented errors).
 */

const ses = mockClient(SESv2Client);
const SENDER = 'invitations@animalstore.example';
const SECRET_LINK =
  'https://console.animalstore.example/console/#invitation=inv_0123456789abcdef_' + 'S'.repeat(43);
const MESSAGE: InvitationMessage = {
  to: 'ada@example.com',
  project: 'otters',
  role: 'admin',
  invitedBy: 'grace@example.com',
  link: SECRET_LINK,
  expiresAt: '2026-12-03T08:00:00.000Z',
};
const mailer = () =>
  sesInvitationMailer({ client: new SESv2Client({ region: 'eu-west-1' }), sender: SENDER });

beforeEach(() => ses.reset());

test('sends one SendEmail from the sender to the invited address alone, with the link, the inviter, the project and the role', async () => {
  ses.on(SendEmailCommand).resolves({ MessageId: '0102018c-sample-message-id-000000' });
  const output = captureOutput();
  try {
    await mailer().send(MESSAGE);
  } finally {
    output.restore();
  }
  const calls = ses.commandCalls(SendEmailCommand);
  expect(calls).toHaveLength(1);
  const input = calls[0]!.args[0].input;
  expect(input.FromEmailAddress).toBe(SENDER);
  expect(input.Destination).toEqual({ ToAddresses: ['ada@example.com'] });
  const simple = input.Content?.Simple;
  expect(simple?.Subject?.Data).toBe('Join otters on Animal Store');
  for (const body of [simple?.Body?.Text?.Data, simple?.Body?.Html?.Data]) {
    expect(body).toContain(SECRET_LINK);
    expect(body).toContain('grace@example.com invites you to the project otters as admin.');
    expect(body).toContain('2026-12-03T08:00:00.000Z');
  }
  expect(output.text()).toContain('invitation emailed');
  expect(output.text()).toContain('0102018c-sample-message-id-000000');
  expect(output.text()).not.toContain('S'.repeat(43));
});

test('escapes every value in the HTML body', async () => {
  ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
  const output = captureOutput();
  try {
    await mailer().send({
      ...MESSAGE,
      invitedBy: '<script>alert(1)</script>@example.com',
      link: `${SECRET_LINK}"><img src=x>`,
      to: "o'brien&co@example.com",
    });
  } finally {
    output.restore();
  }
  const html = ses.commandCalls(SendEmailCommand)[0]!.args[0].input.Content?.Simple?.Body?.Html?.Data ?? '';
  expect(html).not.toMatch(/<script|<img|o'brien&co/);
  expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;@example.com');
  expect(html).toContain('&#34;&#62;&#60;img src=x&#62;');
  expect(html).toContain('o&#39;brien&#38;co@example.com');
});

const refusals = [
  new MessageRejected({ message: 'Email address is not verified.', $metadata: {} }),
  new MailFromDomainNotVerifiedException({ message: 'MAIL FROM domain not verified', $metadata: {} }),
  new AccountSuspendedException({ message: 'Account suspended', $metadata: {} }),
  new SendingPausedException({ message: 'Sending paused', $metadata: {} }),
  new TooManyRequestsException({ message: 'Too many requests', $metadata: {} }),
  new NotFoundException({ message: 'Identity not found', $metadata: {} }),
];

test.each(refusals.map((error) => [error.name, error] as const))(
  'SES refusing with %s: send resolves (the invitation keeps its link), logged by name, never with the link',
  async (name, error) => {
    ses.on(SendEmailCommand).rejects(error);
    const output = captureOutput();
    try {
      await expect(mailer().send(MESSAGE)).resolves.toBeUndefined();
    } finally {
      output.restore();
    }
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(1);
    const text = output.text();
    expect(text).toContain('invitation not emailed: the inviter copies its link');
    expect(text).toContain(`"refusal":"${name}"`);
    expect(text).toContain('"project":"otters"');
    expect(text).not.toContain('inv_0123456789abcdef');
    expect(text).not.toContain('ada@example.com');
  },
);
