import { randomBytes } from 'node:crypto';
import type * as SesSdk from '@aws-sdk/client-sesv2';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import type { ApiLambdaHandler as ProxyHandler } from '../../../lambda/middleware/api-handler';
import { issueConsoleToken, newUsageId } from '../../../lambda/core/project';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';
import { loadHandlers, TEST_PLATFORM_DOMAIN } from '../../support/handlers';
import { CONSOLE_TABLES_ENV } from '../../support/console-function-env';

/**
 * The console function as production deploys it, with INVITATION_SENDER (issue 27): an
 * invitation is stored in the embedded store's table and emailed through SES, which cannot run
 * here and is mocked at the SDK boundary (the copy of the SDK the handler loads afresh). When SES
 * refuses, the inviter still has the link and the invitation stays pending.
 */

let sdk: typeof SesSdk;
let ses: AwsStub<SesSdk.ServiceInputTypes, SesSdk.ServiceOutputTypes, SesSdk.SESv2ClientResolvedConfig>;
const SENDER = `invitations@${TEST_PLATFORM_DOMAIN}`;
const CONSOLE_ORIGIN = `https://console.${TEST_PLATFORM_DOMAIN}`;
const CONSOLE_ENV = {
  ...CONSOLE_TABLES_ENV,
  [RUNTIME_ENV.consoleOrigin]: CONSOLE_ORIGIN,
  [RUNTIME_ENV.domainsTarget]: `domains.${TEST_PLATFORM_DOMAIN}`,
  [RUNTIME_ENV.edgeDistributionId]: 'E1M2U3L4T5I6T7',
  [RUNTIME_ENV.edgeConnectionGroupId]: 'cg_2wjDZMmOKVKmvYm3EzWbGHPwHpd',
  [RUNTIME_ENV.invitationSender]: SENDER,
};

let store: TestStore;
let handler: ProxyHandler | undefined;
let token: string;
const saved = Object.fromEntries(Object.keys(CONSOLE_ENV).map((name) => [name, process.env[name]]));

beforeAll(async () => {
  store = await startTestStore();
  const name = `m-${randomBytes(4).toString('hex')}`;
  const issued = issueConsoleToken(name);
  const now = new Date().toISOString();
  await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).create({
    name,
    plan: 'pro',
    createdAt: now,
    consoleTokenHash: issued.hash,
    consoleTokenIssuedAt: now,
    usageId: newUsageId(),
  });
  token = issued.token;
  Object.assign(process.env, CONSOLE_ENV);
  [handler] = loadHandlers<ProxyHandler>(['console'], store.store.endpoint, () => {
    sdk = require('@aws-sdk/client-sesv2') as typeof SesSdk;
    ses = mockClient(sdk.SESv2Client);
  });
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  ses.restore();
  await store.close();
});
beforeEach(() => ses.reset());

const HOST = `console-api.${TEST_PLATFORM_DOMAIN}`;
const request = (method: string, path: string, body?: unknown) =>
  handler!(
    (() => {
      const event = proxyEvent({
        httpMethod: method,
        path,
        resource: '/console/api/{proxy+}',
        principal: null,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? null : JSON.stringify(body),
      });
      return {
        ...event,
        headers: { ...event.headers, Host: HOST },
        requestContext: { ...event.requestContext, domainName: HOST },
      };
    })(),
    lambdaContext,
  );

async function pendingEmails(): Promise<string[]> {
  const listed = JSON.parse((await request('GET', '/console/api/invitations')).body) as {
    invitations: { email: string }[];
  };
  return listed.invitations.map((invitation) => invitation.email);
}

test('an invitation is emailed through SES, from the sender to the invited address, with the link the inviter gets', async () => {
  ses.on(sdk.SendEmailCommand).resolves({ MessageId: '0102018c-sample-message-id-000001' });
  const result = await request('POST', '/console/api/invitations', {
    email: 'Ada@Example.com',
    role: 'viewer',
  });
  expect(result.statusCode).toBe(201);
  const { link } = JSON.parse(result.body) as { link: string };
  expect(link).toMatch(new RegExp(`^${CONSOLE_ORIGIN}/console/#invitation=inv_[0-9a-f]{16}_`));
  const calls = ses.commandCalls(sdk.SendEmailCommand);
  expect(calls).toHaveLength(1);
  const input = calls[0]!.args[0].input;
  expect(input.FromEmailAddress).toBe(SENDER);
  expect(input.Destination).toEqual({ ToAddresses: ['ada@example.com'] });
  expect(input.Content?.Simple?.Body?.Text?.Data).toContain(link);
  expect(await pendingEmails()).toContain('ada@example.com');
});

test.each(['MessageRejected', 'AccountSuspendedException', 'TooManyRequestsException'] as const)(
  'SES refusing with %s: the console still answers the link, and the invitation is pending',
  async (name) => {
    const Refusal = sdk[name];
    ses.on(sdk.SendEmailCommand).rejects(new Refusal({ message: `SES says ${name}`, $metadata: {} }));
    const email = `${name.toLowerCase()}@example.com`;
    const result = await request('POST', '/console/api/invitations', { email, role: 'viewer' });
    expect(result.statusCode).toBe(201);
    expect((JSON.parse(result.body) as { link: string }).link).toMatch(/#invitation=inv_/);
    expect(ses.commandCalls(sdk.SendEmailCommand)).toHaveLength(1);
    expect(await pendingEmails()).toContain(email);
  },
);
