import { randomBytes } from 'node:crypto';
import type * as CloudFrontSdk from '@aws-sdk/client-cloudfront';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import { issueConsoleToken, newUsageId } from '../../../lambda/core/project';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { CustomDomainRepository } from '../../../lambda/store/custom-domain-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { PLANS } from '../../../lambda/core/plans';
import { keySubject, projectIdentity, RateLimiter } from '../../../lambda/core/rate-limiter';
import type { UsageHistory } from '../../../lambda/core/usage-history';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext, proxyEvent } from '../../support/events';
import { loadHandlers, TEST_PLATFORM_DOMAIN } from '../../support/handlers';
import type { ApiLambdaHandler as ProxyHandler } from '../../../lambda/middleware/api-handler';
import { CONSOLE_TABLES_ENV } from '../../support/console-function-env';

// CloudFront cannot run here: mocked at the SDK boundary (the copy of the SDK the handler loads
// afresh, in its own module registry); the tables are the embedded store's.
let sdk: typeof CloudFrontSdk;
let cloudfront: AwsStub<
  CloudFrontSdk.ServiceInputTypes,
  CloudFrontSdk.ServiceOutputTypes,
  CloudFrontSdk.CloudFrontClientResolvedConfig
>;
const DISTRIBUTION_ID = 'E1M2U3L4T5I6T7';

/** What the stack gives the console function besides the API's variables (lib/constructs/console-service.ts). */
const CONSOLE_ENV = {
  ...CONSOLE_TABLES_ENV,
  [RUNTIME_ENV.consoleOrigin]: `https://console.${TEST_PLATFORM_DOMAIN}`,
  [RUNTIME_ENV.domainsTarget]: `domains.${TEST_PLATFORM_DOMAIN}`,
  [RUNTIME_ENV.edgeDistributionId]: DISTRIBUTION_ID,
  [RUNTIME_ENV.edgeConnectionGroupId]: 'cg_2wjDZMmOKVKmvYm3EzWbGHPwHpd',
};

let store: TestStore;
let handler: ProxyHandler | undefined;
let token: string;
let projectName: string;
const saved = Object.fromEntries(Object.keys(CONSOLE_ENV).map((name) => [name, process.env[name]]));

beforeAll(async () => {
  store = await startTestStore();
  const name = `c-${randomBytes(4).toString('hex')}`;
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
  projectName = name;
  Object.assign(process.env, CONSOLE_ENV);
  [handler] = loadHandlers<ProxyHandler>(['console'], store.store.endpoint, () => {
    sdk = require('@aws-sdk/client-cloudfront') as typeof CloudFrontSdk;
    cloudfront = mockClient(sdk.CloudFrontClient);
  });
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await store.close();
});
beforeEach(() => cloudfront.reset());
afterAll(() => cloudfront.restore());

/** The console API's host, where the console's distribution sends it (its origin). */
const CONSOLE_API_HOST = `console-api.${TEST_PLATFORM_DOMAIN}`;

/** An event as it arrives through the platform's wildcard custom domain at `host` (API Gateway names it in the context). */
function atHost(host: string, event: APIGatewayProxyEvent): APIGatewayProxyEvent {
  return {
    ...event,
    headers: { ...event.headers, Host: host },
    requestContext: { ...event.requestContext, domainName: host },
  };
}

/** A request through `ANY /console/api/{proxy+}` of the REST API, as its proxy integration passes it. */
const requestAt = (
  host: string,
  method: string,
  path: string,
  body?: unknown,
  authorization = `Bearer ${token}`,
) =>
  handler!(
    atHost(
      host,
      proxyEvent({
        httpMethod: method,
        path,
        resource: '/console/api/{proxy+}',
        principal: null,
        headers: {
          ...(authorization ? { Authorization: authorization } : {}),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? null : JSON.stringify(body),
      }),
    ),
    lambdaContext,
  );

const request = (method: string, path: string, body?: unknown, authorization = `Bearer ${token}`) =>
  requestAt(CONSOLE_API_HOST, method, path, body, authorization);

describe('the console function, composed for AWS', () => {
  it("lists the project's domains from the custom domains table", async () => {
    const result = await request('GET', '/console/api/domains');
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ domains: [] });
  });

  it('adds a domain without asking CloudFront (a name in use elsewhere is refused at verify, when its tenant is created)', async () => {
    const result = await request('POST', '/console/api/domains', { name: 'Shop.Example.com' });
    expect(result.statusCode).toBe(201);
    expect(JSON.parse(result.body)).toMatchObject({ name: 'shop.example.com', state: 'pending-dns' });
    expect(cloudfront.calls()).toHaveLength(0);
    const listed = JSON.parse((await request('GET', '/console/api/domains')).body) as {
      domains: { name: string }[];
    };
    expect(listed.domains.map((domain) => domain.name)).toEqual(['shop.example.com']);
  });

  it.each([
    ['yes', 'a string'],
    [1, 'a number'],
    [null, 'null'],
  ])('refuses a redirect of %j by its schema, 400 invalid_body', async (redirect, kind) => {
    const result = await request('POST', '/console/api/domains', { name: 'flag.example.com', redirect });
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toEqual({
      code: 'invalid_body',
      message: `Invalid request body: redirect must be true or false, not ${kind}.`,
      status: 400,
    });
  });

  it('answers 503 in the Error shape when CloudFront is throttling, naming no exception', async () => {
    // An attached domain whose certificate is pending: listing asks CloudFront for its tenant.
    const since = new Date().toISOString();
    const domains = new CustomDomainRepository(store.documents, LOCAL_TABLE_NAMES.customDomains);
    await domains.create({
      name: 'pending.example.com',
      project: projectName,
      role: 'additional',
      state: 'certificate-pending',
      since,
      addedAt: since,
      attached: true,
      certificate: 'pending',
      version: 1,
    });
    cloudfront.on(sdk.GetDistributionTenantByDomainCommand).rejects(
      Object.assign(new Error('Rate exceeded'), {
        name: 'Throttling',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const result = await request('GET', '/console/api/domains');
    await domains.delete('pending.example.com', projectName);
    expect(cloudfront.commandCalls(sdk.GetDistributionTenantByDomainCommand)).toHaveLength(1);
    expect(result.statusCode).toBe(503);
    const body = JSON.parse(result.body) as { code: string; message: string; status: number };
    expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(body.message).not.toMatch(/\b\w*(Error|Exception)\b|Throttling/);
  });

  it('refuses a request without a console token or a session, 401 in the Error shape', async () => {
    const result = await request('GET', '/console/api/domains', undefined, '');
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body)).toMatchObject({ code: 'not_signed_in', status: 401 });
    expect(result.headers?.['Cache-Control']).toBe('no-store');
  });

  it('signs in only from CONSOLE_ORIGIN, with the __Host- session cookie, and lists keys with it', async () => {
    const signIn = (origin: string) =>
      handler!(
        atHost(
          CONSOLE_API_HOST,
          proxyEvent({
            httpMethod: 'POST',
            path: '/console/api/session',
            resource: '/console/api/{proxy+}',
            principal: null,
            headers: { Origin: origin, 'Content-Type': 'application/json' },
            body: JSON.stringify({ token }),
          }),
        ),
        lambdaContext,
      );
    expect((await signIn('https://dev.animalstore.example')).statusCode).toBe(403);
    const signedIn = await signIn(`https://console.${TEST_PLATFORM_DOMAIN}`);
    expect(signedIn.statusCode).toBe(201);
    const cookie = String(signedIn.headers?.['Set-Cookie']).split(';')[0] ?? '';
    expect(cookie).toMatch(/^__Host-animal-store-session=/);
    const keys = await handler!(
      atHost(
        CONSOLE_API_HOST,
        proxyEvent({
          httpMethod: 'GET',
          path: '/console/api/keys',
          resource: '/console/api/{proxy+}',
          principal: null,
          headers: { Cookie: cookie },
        }),
      ),
      lambdaContext,
    );
    expect(keys.statusCode).toBe(200);
    expect(JSON.parse(keys.body)).toEqual({ keys: [] });
  });

  it.each([
    ['a project address', `dev.${TEST_PLATFORM_DOMAIN}`],
    ["a custom domain's request, which arrives at its project's address", `shop.${TEST_PLATFORM_DOMAIN}`],
    ['the execute-api address', 'abc123.execute-api.eu-west-1.amazonaws.com'],
  ])('answers only at console-api.<platform domain>: at %s every console path is 404', async (_, host) => {
    for (const [method, path] of [
      ['GET', '/console/api/domains'],
      ['POST', '/console/api/session'],
      ['GET', '/console/api/no-such-path'],
    ] as const) {
      const result = await requestAt(host, method, path);
      expect({ status: result.statusCode, body: JSON.parse(result.body) }).toEqual({
        status: 404,
        body: { code: 'not_found', message: expect.stringContaining('/v1'), status: 404 },
      });
      expect(result.headers?.['X-Content-Type-Options']).toBe('nosniff');
    }
    // The same token, at the console's own host.
    expect((await request('GET', '/console/api/domains')).statusCode).toBe(200);
  });

  it("answers the project's usage history: exactly its admitted calls per operation, never another project's", async () => {
    const counters = new RateLimitStore(store.documents, LOCAL_TABLE_NAMES.rateLimits);
    const nowMs = Date.now();
    const limiter = new RateLimiter(counters, () => nowMs, {
      operations: ['getPet', 'listPets'],
      writer: counters,
    });
    const send = async (project: string, operation: string, times: number) => {
      for (let index = 0; index < times; index++) {
        await limiter.admit(projectIdentity(project), PLANS.pro.limits, keySubject('k'), operation);
      }
    };
    await send(projectName, 'getPet', 4);
    await send(projectName, 'listPets', 2);
    await send(`${projectName}-other`, 'getPet', 7);
    const result = await request('GET', '/console/api/usage/history');
    expect(result.statusCode).toBe(200);
    const history = JSON.parse(result.body) as UsageHistory;
    // Summed over the windows, so that an hour or a day ending meanwhile changes nothing.
    const sum = (buckets: UsageHistory['hours'], operation: string) =>
      buckets.reduce((total, bucket) => total + (bucket.admitted[operation] ?? 0), 0);
    expect([sum(history.hours, 'getPet'), sum(history.hours, 'listPets')]).toEqual([4, 2]);
    expect([sum(history.days, 'getPet'), sum(history.days, 'listPets')]).toEqual([4, 2]);
    expect(history).toMatchObject({ limits: PLANS.pro.limits, refusedAreLowerBounds: true });
    expect([history.hours.length, history.days.length]).toEqual([24, 30]);
    expect((await request('GET', '/console/api/usage/history', undefined, '')).statusCode).toBe(401);
  });
});
