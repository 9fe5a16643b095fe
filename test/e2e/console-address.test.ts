import { randomBytes } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { NO_SUCH_PATH } from '../../lambda/api/gateway-errors';
import { issueApiKey } from '../../lambda/core/api-key';
import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { closeRawConnections, rawRequest } from '../support/raw-http';
import { type TextAnswer, textOf } from '../support/text-answer';
import { sharedConsoleBuild } from '../support/console-build';

/**
 * The console answers only at its own address. A tenant's custom domain reaches its project's
 * address through the edge, and a project's address is a name under the tenant's control as far
 * as its pages go: neither may serve the console's page or its API, which would be a page that
 * looks like the platform's on a name the tenant controls. Both answer 404 there, the Error
 * body of a path the API does not have; at the console's own address (local mode's
 * `localhost:<port>` and `127.0.0.1:<port>`) both still work.
 */

const SHOP = 'shop.console-address.test';

let api: LocalApi;
let project: string;
let consoleToken: string;
let apiKey: string;

/** A console API call at the console's own address, with the token as a tool sends it. */
async function consoleCall(method: string, apiPath: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${api.port}/console/api${apiPath}`, {
    method,
    headers: {
      Authorization: `Bearer ${consoleToken}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** An HTTPS request through the local edge to the custom domain, trusting only the local CA's root. */
function viaEdge(
  method: string,
  requestPath: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<TextAnswer> {
  const domains = api.domains;
  if (!domains) throw new Error('local mode started without custom domains');
  return textOf((done) => {
    const outgoing = httpsRequest(
      {
        method,
        host: domains.edge.host,
        port: domains.edge.httpsPort,
        path: requestPath,
        servername: SHOP,
        ca: domains.authority.rootCertificatePem,
        agent: false,
        headers: { host: `${SHOP}:${domains.edge.httpsPort}`, ...headers },
      },
      done,
    );
    if (body !== undefined) outgoing.write(body);
    return outgoing;
  });
}

/** The Error body of a path the API does not have: what API Gateway answers outside /v1. */
const NOT_HERE = { code: 'not_found', message: NO_SUCH_PATH, status: 404 };

beforeAll(async () => {
  const site = await sharedConsoleBuild();
  api = await startLocalApi({ port: 0, dynamodbPort: 0, consoleSite: site, customDomains: {} });
  const documents = createDocumentClient(api.dynamodbEndpoint);
  try {
    project = `ca-${randomBytes(4).toString('hex')}`;
    const issued = issueConsoleToken(project);
    const at = new Date().toISOString();
    await new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects).create({
      name: project,
      plan: 'pro',
      createdAt: at,
      consoleTokenHash: issued.hash,
      consoleTokenIssuedAt: at,
      usageId: newUsageId(),
    });
    consoleToken = issued.token;
    const key = issueApiKey(project, 'test key', new Date());
    await new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys).put(key.record);
    apiKey = key.apiKey;
  } finally {
    documents.destroy();
  }
  // The tenant's flow: add, create the record the service names, verify; the certificate follows.
  const added = await consoleCall('POST', '/domains', { name: SHOP });
  const record = added.body.record as { type: string; value: string };
  api.domains?.dns.setRecord({ name: SHOP, type: 'CNAME', value: record.value });
  await consoleCall('POST', `/domains/${SHOP}/verify`);
  const listed = await consoleCall('GET', '/domains');
  expect(listed.body.domains).toEqual([expect.objectContaining({ name: SHOP, state: 'active' })]);
}, 60_000);

afterAll(async () => {
  closeRawConnections();
  await api?.close();
});

describe('through a custom domain, on the HTTPS edge', () => {
  it('serves the project’s API (the domain works)', async () => {
    const answer = await viaEdge('GET', '/v1/pets', { authorization: `Bearer ${apiKey}` });
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, []]);
  });

  it.each(['/console/', '/console/index.html', '/console'])(
    'answers 404 for the console page %s',
    async (page) => {
      const answer = await viaEdge('GET', page);
      expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({
        status: 404,
        body: NOT_HERE,
      });
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    },
  );

  it('answers 404 for the console’s API, with the project’s own console token or a sign-in', async () => {
    const usage = await viaEdge('GET', '/console/api/usage', { authorization: `Bearer ${consoleToken}` });
    const signIn = await viaEdge(
      'POST',
      '/console/api/session',
      { origin: `https://${SHOP}`, 'content-type': 'application/json' },
      JSON.stringify({ token: consoleToken }),
    );
    for (const answer of [usage, signIn]) {
      expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({
        status: 404,
        body: NOT_HERE,
      });
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
  });

  it('answers 404 for the sandbox DNS, local mode’s own endpoint', async () => {
    const answer = await viaEdge('GET', '/console/api/sandbox/records');
    expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({ status: 404, body: NOT_HERE });
  });
});

describe('at a project’s address', () => {
  const at = (method: string, target: string, headers: [string, string][] = []) =>
    rawRequest(`http://127.0.0.1:${api.port}`, {
      method,
      path: target,
      headers: [['Host', `${project}.localhost:${api.port}`], ...headers],
    });

  it('answers 404 for the console page and the console’s API', async () => {
    for (const answer of [
      await at('GET', '/console/'),
      await at('GET', '/console/api/usage', [['Authorization', `Bearer ${consoleToken}`]]),
      await at('GET', '/console/api/sandbox/records'),
    ]) {
      expect({ status: answer.status, body: JSON.parse(answer.text) }).toEqual({
        status: 404,
        body: NOT_HERE,
      });
    }
  });

  it('still serves the project’s API', async () => {
    const answer = await at('GET', '/v1/pets', [['Authorization', `Bearer ${apiKey}`]]);
    expect(answer.status).toBe(200);
  });
});

describe('at the console’s own address', () => {
  it.each(['localhost', '127.0.0.1'])('serves the page and the API at %s:<port>', async (host) => {
    const origin = `http://${host}:${api.port}`;
    const page = await fetch(`${origin}/console/`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const usage = await fetch(`${origin}/console/api/usage`, {
      headers: { Authorization: `Bearer ${consoleToken}` },
    });
    expect([usage.status, ((await usage.json()) as { project?: { name?: string } }).project?.name]).toEqual([
      200,
      project,
    ]);
  });
});
