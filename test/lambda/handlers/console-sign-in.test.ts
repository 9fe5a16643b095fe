import { randomBytes } from 'node:crypto';
import type * as SecretsManagerSdk from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import { SESSION_COOKIE_NAME, SIGN_IN_COOKIE_NAME } from '../../../lambda/api/console-cookies';
import { SIGN_IN_CALLBACK_PATH, SIGN_IN_START_PATH } from '../../../lambda/api/console-routes';
import type { ApiLambdaHandler } from '../../../lambda/middleware/api-handler';
import { MemberRepository } from '../../../lambda/store/member-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { issueConsoleToken, newUsageId } from '../../../lambda/core/project';
import { ANONYMOUS_LIMITS } from '../../../lambda/core/plans';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../../lambda/core/edge-request';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { DEV_OWNER, DEV_VIEWER } from '../../../local/dev-people';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import {
  type LocalOidcProvider,
  newClientSecret,
  startLocalOidcProvider,
} from '../../../local/oidc-provider';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';
import { loadHandlers, TEST_PLATFORM_DOMAIN } from '../../support/handlers';
import { signInAtProvider } from '../../support/local-oidc';
import { CONSOLE_TABLES_ENV } from '../../support/console-function-env';

/**
 * The console function as the stack composes it with OIDC_ISSUER set (issue 26): the sign-in
 * through a real OpenID provider (the local one, standing in for the user pool), the client's
 * secret read from Secrets Manager (which cannot run here: mocked at the SDK, as its documented
 * GetSecretValue answers), the tables the embedded store's.
 */

const CONSOLE_ORIGIN = `https://console.${TEST_PLATFORM_DOMAIN}`;
const CONSOLE_API_HOST = `console-api.${TEST_PLATFORM_DOMAIN}`;
const CALLBACK_URL = `${CONSOLE_ORIGIN}${SIGN_IN_CALLBACK_PATH}`;
const CLIENT_ID = 'console-app-client';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:console-oidc-client-AbCdEf';
const clientSecret = newClientSecret();
/** The edge's origin secret, which the console's distribution sends (doc/deploying.md). */
const ORIGIN_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:edge-origin-AbCdEf';
const ORIGIN_SECRET = 'origin-secret-value-0123456789';
/** The service clock in the handler's registry: fixed, a minute into a UTC day, so no test crosses a rate window. */
const SERVICE_NOW_MS = Date.parse('2031-03-04T05:06:00.000Z');

let store: TestStore;
let provider: LocalOidcProvider;
let handler: ApiLambdaHandler;
let secrets: AwsStub<
  SecretsManagerSdk.ServiceInputTypes,
  SecretsManagerSdk.ServiceOutputTypes,
  SecretsManagerSdk.SecretsManagerClientResolvedConfig
>;
let sdk: typeof SecretsManagerSdk;
let project: string;

const CONSOLE_ENV = {
  ...CONSOLE_TABLES_ENV,
  [RUNTIME_ENV.consoleOrigin]: CONSOLE_ORIGIN,
  [RUNTIME_ENV.domainsTarget]: `domains.${TEST_PLATFORM_DOMAIN}`,
  [RUNTIME_ENV.edgeDistributionId]: 'E1M2U3L4T5I6T7',
  [RUNTIME_ENV.edgeConnectionGroupId]: 'cg_2wjDZMmOKVKmvYm3EzWbGHPwHpd',
  [RUNTIME_ENV.oidcClientId]: CLIENT_ID,
  [RUNTIME_ENV.oidcClientSecretArn]: SECRET_ARN,
  [RUNTIME_ENV.edgeOriginSecretArn]: ORIGIN_SECRET_ARN,
};
const saved = Object.fromEntries(
  [...Object.keys(CONSOLE_ENV), RUNTIME_ENV.oidcIssuer].map((name) => [name, process.env[name]]),
);

beforeAll(async () => {
  [store, provider] = await Promise.all([
    startTestStore(),
    startLocalOidcProvider({
      port: 0,
      clients: [{ clientId: CLIENT_ID, clientSecret, redirectUris: [CALLBACK_URL] }],
    }),
  ]);
  project = `c-${randomBytes(4).toString('hex')}`;
  const issued = issueConsoleToken(project);
  const now = new Date().toISOString();
  const projects = new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects);
  await projects.create({
    name: project,
    plan: 'pro',
    createdAt: now,
    consoleTokenHash: issued.hash,
    consoleTokenIssuedAt: now,
    usageId: newUsageId(),
  });
  await new MemberRepository(store.documents, LOCAL_TABLE_NAMES.projectMembers).create({
    project,
    issuer: provider.issuer,
    subject: DEV_OWNER.subject,
    email: DEV_OWNER.email,
    role: 'owner',
    addedAt: now,
  });
  await projects.addOwner(project);
  Object.assign(process.env, CONSOLE_ENV, { [RUNTIME_ENV.oidcIssuer]: provider.issuer });
  [handler] = loadHandlers<ApiLambdaHandler>(['console'], store.store.endpoint, () => {
    sdk = require('@aws-sdk/client-secrets-manager') as typeof SecretsManagerSdk;
    secrets = mockClient(sdk.SecretsManagerClient);
    const { setClock } =
      require('../../../lambda/shared/clock') as typeof import('../../../lambda/shared/clock');
    setClock(() => SERVICE_NOW_MS);
    secrets
      .on(sdk.GetSecretValueCommand, { SecretId: SECRET_ARN })
      .resolves({ ARN: SECRET_ARN, Name: 'console-oidc-client', SecretString: clientSecret });
    secrets
      .on(sdk.GetSecretValueCommand, { SecretId: ORIGIN_SECRET_ARN, VersionStage: 'AWSCURRENT' })
      .resolves({
        ARN: ORIGIN_SECRET_ARN,
        Name: 'OriginSecret',
        SecretString: ORIGIN_SECRET,
        VersionStages: ['AWSCURRENT'],
      });
    secrets
      .on(sdk.GetSecretValueCommand, { SecretId: ORIGIN_SECRET_ARN, VersionStage: 'AWSPREVIOUS' })
      .rejects(
        new sdk.ResourceNotFoundException({
          message: "Secrets Manager can't find the specified secret value for staging label: AWSPREVIOUS",
          $metadata: {},
        }),
      );
  }) as [ApiLambdaHandler];
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  secrets?.restore();
  await Promise.all([provider?.close(), store?.close()]);
});

/**
 * A browser's navigation to the console's API; `viewer`: through the console's distribution,
 * which names the viewer's address and proves itself with the origin secret.
 */
function navigate(path: string, cookie?: string, viewer?: string): Promise<APIGatewayProxyResult> {
  const url = new URL(path, CONSOLE_ORIGIN);
  const query = Object.fromEntries(url.searchParams);
  const event = proxyEvent({
    httpMethod: 'GET',
    path: url.pathname,
    resource: '/console/api/{proxy+}',
    principal: null,
    headers: {
      Host: CONSOLE_API_HOST,
      ...(cookie ? { Cookie: cookie } : {}),
      ...(viewer
        ? { [ORIGIN_SECRET_HEADER]: ORIGIN_SECRET, [VIEWER_ADDRESS_HEADER]: `${viewer}:52100` }
        : {}),
    },
    queryStringParameters: Object.keys(query).length > 0 ? query : null,
  });
  // API Gateway names the custom domain the request came through.
  const atConsoleHost: APIGatewayProxyEvent = {
    ...event,
    requestContext: { ...event.requestContext, domainName: CONSOLE_API_HOST },
  };
  return handler(atConsoleHost, lambdaContext) as Promise<APIGatewayProxyResult>;
}

const cookiesOf = (answer: APIGatewayProxyResult) =>
  (answer.multiValueHeaders?.['Set-Cookie'] ?? []).map(String);
const cookieNamed = (answer: APIGatewayProxyResult, name: string) =>
  cookiesOf(answer)
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0];

/** A sign-in started at the function, and the provider's return once `person` signed in there. */
async function returnedFrom(person = DEV_OWNER) {
  const started = await navigate(`${SIGN_IN_START_PATH}?returnTo=/console/keys`);
  expect(started.statusCode).toBe(302);
  const visit = await signInAtProvider(String(started.headers?.Location), person.email, person.password);
  if (!visit.callbackUrl) throw new Error(`no return: ${visit.status} ${visit.html ?? ''}`);
  return { cookie: cookieNamed(started, SIGN_IN_COOKIE_NAME) ?? '', callback: new URL(visit.callbackUrl) };
}

test("signs a member in through the provider, with the client's secret from Secrets Manager, read once", async () => {
  const { cookie, callback } = await returnedFrom();
  expect(callback.origin + callback.pathname).toBe(CALLBACK_URL);
  const returned = await navigate(`${callback.pathname}${callback.search}`, cookie);
  expect(returned.statusCode).toBe(303);
  expect(returned.headers?.Location).toBe('/console/keys');
  const session = cookieNamed(returned, SESSION_COOKIE_NAME);
  expect(session).toBeDefined();
  const answer = await navigate('/console/api/session', session);
  expect(answer.statusCode).toBe(200);
  expect(JSON.parse(answer.body)).toMatchObject({
    project,
    role: 'owner',
    person: { email: DEV_OWNER.email },
  });
  // A second sign-in reads no secret again: the instance keeps it.
  await returnedFrom();
  expect(secrets.commandCalls(sdk.GetSecretValueCommand)).toHaveLength(1);
});

test('signs a person of no project in to a session in none, and refuses a tampered state, clearing the sign-in cookie', async () => {
  // A person of no project may start one or accept an invitation (issue 27): a session, in no project.
  const viewer = await returnedFrom(DEV_VIEWER);
  const projectless = await navigate(`${viewer.callback.pathname}${viewer.callback.search}`, viewer.cookie);
  expect(projectless.statusCode).toBe(303);
  expect(cookieNamed(projectless, SESSION_COOKIE_NAME)).toBeDefined();
  const { cookie, callback } = await returnedFrom();
  callback.searchParams.set('state', 'tampered');
  const tampered = await navigate(`${callback.pathname}${callback.search}`, cookie);
  expect(tampered.statusCode).toBe(401);
  expect(JSON.parse(tampered.body)).toMatchObject({ code: 'sign_in_refused', status: 401 });
  expect(cookiesOf(tampered)[0] ?? tampered.headers?.['Set-Cookie']).toMatch(
    new RegExp(`^${SIGN_IN_COOKIE_NAME}=; .*Max-Age=0`),
  );
});

test("through the console's distribution, starts are counted per viewer, not per edge address", async () => {
  const start = (viewer: string) => navigate(`${SIGN_IN_START_PATH}?returnTo=/console/`, undefined, viewer);
  let admitted = 0;
  while ((await start('198.51.100.7')).statusCode === 302 && admitted <= ANONYMOUS_LIMITS.perMinute)
    admitted += 1;
  expect(admitted).toBe(ANONYMOUS_LIMITS.perMinute);
  const refused = await start('198.51.100.7');
  expect({ status: refused.statusCode, code: JSON.parse(refused.body).code }).toEqual({
    status: 429,
    code: 'rate_limited',
  });
  // Another viewer through the same edge address starts as usual.
  expect((await start('198.51.100.8')).statusCode).toBe(302);
});
