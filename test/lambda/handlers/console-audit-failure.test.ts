import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ApiLambdaHandler as ProxyHandler } from '../../../lambda/middleware/api-handler';
import { issueConsoleToken, newUsageId } from '../../../lambda/core/project';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { captureOutput } from '../../support/capture-output';
import { CONSOLE_TABLES_ENV } from '../../support/console-function-env';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';
import { loadHandlers, TEST_PLATFORM_DOMAIN } from '../../support/handlers';

/**
 * The audit log's failed write (issue 28): the change was made, so the caller's answer is the
 * same as with a working log, and the failure is logged, without the call's secrets. The log's
 * table here is one the real store does not have: every append fails as a missing table would.
 */

const MISSING_AUDIT_TABLE = `no-audit-log-${randomBytes(3).toString('hex')}`;
const CONSOLE_ENV = {
  ...CONSOLE_TABLES_ENV,
  [RUNTIME_ENV.auditLogTable]: MISSING_AUDIT_TABLE,
  [RUNTIME_ENV.consoleOrigin]: `https://console.${TEST_PLATFORM_DOMAIN}`,
  [RUNTIME_ENV.domainsTarget]: `domains.${TEST_PLATFORM_DOMAIN}`,
  [RUNTIME_ENV.edgeDistributionId]: 'E1M2U3L4T5I6T7',
  [RUNTIME_ENV.edgeConnectionGroupId]: 'cg_2wjDZMmOKVKmvYm3EzWbGHPwHpd',
  // The logs are what this test reads (test/support/setup-env.ts silences them elsewhere).
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

let store: TestStore;
let handler: ProxyHandler | undefined;
let token: string;
const saved = Object.fromEntries(Object.keys(CONSOLE_ENV).map((name) => [name, process.env[name]]));

beforeAll(async () => {
  store = await startTestStore();
  const name = `af-${randomBytes(4).toString('hex')}`;
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
  [handler] = loadHandlers<ProxyHandler>(['console'], store.store.endpoint);
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await store.close();
});

const CONSOLE_API_HOST = `console-api.${TEST_PLATFORM_DOMAIN}`;

function request(
  method: string,
  path: string,
  body?: unknown,
  credentials: Record<string, string> = { Authorization: `Bearer ${token}` },
) {
  const event = proxyEvent({
    httpMethod: method,
    path,
    resource: '/console/api/{proxy+}',
    principal: null,
    headers: {
      ...credentials,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const atHost: APIGatewayProxyEvent = {
    ...event,
    headers: { ...event.headers, Host: CONSOLE_API_HOST },
    requestContext: { ...event.requestContext, domainName: CONSOLE_API_HOST },
  };
  return handler!(atHost, lambdaContext);
}

/** A call's answer and what the function logged while it ran. */
async function loggedCall(...call: Parameters<typeof request>) {
  const output = captureOutput();
  try {
    const answer = await request(...call);
    return { answer, logged: output.text() };
  } finally {
    output.restore();
  }
}

describe('an audited call whose entry cannot be written', () => {
  it('still issues the key, answers 201 with it, and logs the failure without the key or the token', async () => {
    const { answer, logged } = await loggedCall('POST', '/console/api/keys', { name: 'ci' });
    expect(answer.statusCode).toBe(201);
    const issued = JSON.parse(answer.body) as { apiKey: string; key: { keyId: string } };
    expect(issued.apiKey).toEqual(expect.any(String));
    expect(logged).toContain('audit entry not recorded');
    expect(logged).not.toContain(issued.apiKey);
    expect(logged).not.toContain(token);

    const listed = JSON.parse((await request('GET', '/console/api/keys')).body) as {
      keys: { keyId: string }[];
    };
    expect(listed.keys.map((key) => key.keyId)).toContain(issued.key.keyId);
  });

  it("answers a refused call with its own refusal, not the log's failure", async () => {
    const { answer, logged } = await loggedCall('DELETE', '/console/api/keys/k_nosuchkey0000');
    expect(answer.statusCode).toBeGreaterThanOrEqual(400);
    expect(answer.statusCode).toBeLessThan(500);
    expect(JSON.parse(answer.body)).toMatchObject({ code: expect.any(String), status: answer.statusCode });
    expect(logged).toContain('audit entry not recorded');
    expect(logged).not.toContain(token);
  });
});

describe('a console token sign-in whose entry cannot be written', () => {
  it('still starts the session (201 and its cookie) and logs the failure without the token', async () => {
    const origin = { Origin: `https://console.${TEST_PLATFORM_DOMAIN}` };
    const { answer, logged } = await loggedCall('POST', '/console/api/session', { token }, origin);
    expect(answer.statusCode).toBe(201);
    const cookie = String(answer.headers?.['Set-Cookie']).split(';')[0] ?? '';
    expect(cookie).toMatch(/^__Host-animal-store-session=./);
    expect(logged).toContain('audit entry not recorded');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(cookie.slice(cookie.indexOf('=') + 1));
    // The session works: the cookie reads the project's keys.
    expect((await request('GET', '/console/api/keys', undefined, { Cookie: cookie })).statusCode).toBe(200);
  });
});
