import type { APIGatewayProxyResult } from 'aws-lambda';
import { MAX_BODY_BYTES } from '../../../lambda/api/limits';
import { issueApiKey } from '../../../lambda/core/api-key';
import { PLANS } from '../../../lambda/core/plans';
import { issueConsoleToken, type ProjectRecord } from '../../../lambda/core/project';
import { ApiKeyRepository } from '../../../lambda/store/api-key-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { authorizerEvent, lambdaContext, proxyEvent } from '../../support/events';
import { loadHandler } from '../../support/handlers';
import type { ApiLambdaHandler as ProxyHandler } from '../../../lambda/middleware/api-handler';
import type { AuthorizerHandler as Authorizer } from '../../../lambda/operations/authorizer';

let store: TestStore;

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

function errorBody(result: APIGatewayProxyResult) {
  return JSON.parse(result.body) as { code: string; message: string; status: number };
}

describe('createPet handler', () => {
  const post = (body: string, extra: Parameters<typeof proxyEvent>[0] = {}) =>
    proxyEvent({
      httpMethod: 'POST',
      headers: { 'content-type': 'application/json', Host: 'h' },
      body,
      ...extra,
    });

  it('answers 201 with a Location on the stage URL the request came through', async () => {
    const handler = loadHandler<ProxyHandler>('create-pet', store.store.endpoint);
    const result = await handler(post(JSON.stringify({ name: 'Rex', categoryId: 1 })), lambdaContext);
    expect(result.statusCode).toBe(201);
    const pet = JSON.parse(result.body) as { id: number };
    expect(result.headers?.Location).toBe(
      `https://abc123.execute-api.eu-west-1.amazonaws.com/production/v1/pets/${pet.id}`,
    );
  });

  it('decodes a base64-encoded body', async () => {
    const handler = loadHandler<ProxyHandler>('create-pet', store.store.endpoint);
    const body = Buffer.from(JSON.stringify({ name: 'Base', categoryId: 2 })).toString('base64');
    const result = await handler(post(body, { isBase64Encoded: true }), lambdaContext);
    expect(result.statusCode).toBe(201);
  });

  it('refuses a body over the limit itself (413), whatever the edge did', async () => {
    const handler = loadHandler<ProxyHandler>('create-pet', store.store.endpoint);
    const result = await handler(post(`"${'x'.repeat(MAX_BODY_BYTES)}"`), lambdaContext);
    expect(result.statusCode).toBe(413);
    expect(errorBody(result)).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('fails closed: no authorizer context means 401, not a created pet', async () => {
    const handler = loadHandler<ProxyHandler>('create-pet', store.store.endpoint);
    const result = await handler(
      post(JSON.stringify({ name: 'Rex', categoryId: 1 }), { principal: null }),
      lambdaContext,
    );
    expect(result.statusCode).toBe(401);
    expect(errorBody(result)).toMatchObject({ code: 'missing_api_key', status: 401 });
  });

  it('answers 503 with Retry-After and no internals when the store is unreachable', async () => {
    const handler = loadHandler<ProxyHandler>('create-pet', 'http://127.0.0.1:9');
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const result = await handler(post(JSON.stringify({ name: 'Rex', categoryId: 1 })), lambdaContext);
      expect(result.statusCode).toBe(503);
      expect(result.headers?.['Retry-After']).toBe('1');
      expect(errorBody(result)).toEqual({
        code: 'service_unavailable',
        message: expect.stringMatching(/data store is (temporarily )?unavailable/),
        status: 503,
      });
      expect(result.body).not.toMatch(/ECONNREFUSED|at .*\.ts|127\.0\.0\.1/);
    } finally {
      errors.mockRestore();
    }
  }, 20_000);
});

describe('authorizer handler', () => {
  async function projectWithKey(name: string, plan: ProjectRecord['plan']) {
    const now = new Date().toISOString();
    await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).create({
      name,
      plan,
      createdAt: now,
      consoleTokenHash: issueConsoleToken(name).hash,
      consoleTokenIssuedAt: now,
      usageId: `usage-${name}`,
    });
    const issued = issueApiKey(name, 'auth test', new Date());
    await new ApiKeyRepository(store.documents, LOCAL_TABLE_NAMES.apiKeys).put(issued.record);
    return issued;
  }

  it("allows a valid key with its project's usage identifier (never its secret), project, plan and limits in the context", async () => {
    const issued = await projectWithKey('authtest', 'business');
    const handler = loadHandler<Authorizer>('authorizer', store.store.endpoint);
    const result = await handler(authorizerEvent({ Authorization: `Bearer ${issued.apiKey}` }));
    expect(result).toMatchObject({
      principalId: issued.record.keyId,
      usageIdentifierKey: 'usage-authtest',
      context: {
        authenticated: 'true',
        keyId: issued.record.keyId,
        project: 'authtest',
        plan: 'business',
        perMinute: String(PLANS.business.limits.perMinute),
        perDay: String(PLANS.business.limits.perDay),
      },
      policyDocument: { Statement: [{ Effect: 'Allow', Action: 'execute-api:Invoke' }] },
    });
    expect(JSON.stringify(result)).not.toContain(issued.apiKey.slice(-43));
  });

  it("decides from the request's project address: its own keys only, and no project there is unknown_address", async () => {
    const own = await projectWithKey('addr-own', 'pro');
    const other = await projectWithKey('addr-other', 'pro');
    const handler = loadHandler<Authorizer>('authorizer', store.store.endpoint);
    const at = (key: string, host: string) =>
      handler(authorizerEvent({ Authorization: `Bearer ${key}` }, host));
    expect((await at(own.apiKey, 'addr-own.animalstore.example')).context).toMatchObject({
      project: 'addr-own',
    });
    expect((await at(other.apiKey, 'addr-own.animalstore.example')).context).toEqual({
      authenticated: 'false',
      failure: 'invalid_api_key',
    });
    expect((await at(own.apiKey, 'nobody-here.animalstore.example')).context).toEqual({
      authenticated: 'false',
      failure: 'unknown_address',
    });
    // The execute-api address names no project: any valid key works there.
    expect((await at(other.apiKey, 'abc123.execute-api.eu-west-1.amazonaws.com')).context).toMatchObject({
      project: 'addr-other',
    });
  });

  it("passes on the request's Origin when the address's project allows it, with or without a key", async () => {
    const issued = await projectWithKey('cors-web', 'pro');
    await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).setAllowedOrigins('cors-web', [
      'https://app.example.com',
    ]);
    const handler = loadHandler<Authorizer>('authorizer', store.store.endpoint);
    const at = async (headers: Record<string, string>, host = 'cors-web.animalstore.example') =>
      (await handler(authorizerEvent(headers, host))).context;
    const origin = 'https://app.example.com';
    expect(await at({ Origin: origin, Authorization: `Bearer ${issued.apiKey}` })).toMatchObject({
      authenticated: 'true',
      corsOrigin: origin,
    });
    // A preflight: no key, still the project's origin.
    expect(await at({ origin })).toEqual({
      authenticated: 'false',
      failure: 'missing_api_key',
      corsOrigin: origin,
    });
    for (const context of [
      await at({ Origin: 'https://evil.example' }),
      await at({}),
      // The shared address names no project, so no project's origins.
      await at(
        { Origin: origin, Authorization: `Bearer ${issued.apiKey}` },
        'abc123.execute-api.eu-west-1.amazonaws.com',
      ),
    ]) {
      expect(context).not.toHaveProperty('corsOrigin');
    }
    const repeated = authorizerEvent({}, 'cors-web.animalstore.example');
    repeated.multiValueHeaders = { Origin: [origin, origin] };
    expect((await handler(repeated)).context).not.toHaveProperty('corsOrigin');
  });

  it("never puts a keyless request on the address's project's usage plan, a preflight from an allowed origin included", async () => {
    const { apiKey } = await projectWithKey('cors-plan', 'pro');
    await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).setAllowedOrigins('cors-plan', [
      'https://shop.example.com',
    ]);
    const handler = loadHandler<Authorizer>('authorizer', store.store.endpoint);
    const request = (method: string, headers: Record<string, string>) => {
      const event = authorizerEvent(headers, 'cors-plan.animalstore.example');
      event.httpMethod = method;
      return handler(event);
    };
    // Anyone can send the allowed Origin: such a preflight would spend the project's gateway
    // quota. It is on the preflight plan, any other keyless request on the anonymous one.
    const preflight = { 'Access-Control-Request-Method': 'GET' };
    for (const [method, headers, usageId] of [
      ['OPTIONS', { Origin: 'https://shop.example.com', ...preflight }, 'preflight-usage-identifier-000'],
      ['OPTIONS', { Origin: 'https://shop.example.com' }, 'anonymous-usage-identifier-000'],
      ['GET', { Origin: 'https://shop.example.com' }, 'anonymous-usage-identifier-000'],
      ['OPTIONS', { Origin: 'https://other.example', ...preflight }, 'anonymous-usage-identifier-000'],
    ] as const) {
      expect((await request(method, headers)).usageIdentifierKey).toBe(usageId);
    }
    // Only the project's own key spends it.
    const keyed = await request('GET', {
      Origin: 'https://shop.example.com',
      Authorization: `Bearer ${apiKey}`,
    });
    expect(keyed.usageIdentifierKey).toBe('usage-cors-plan');
  });

  it('lets an unauthenticated request through as anonymous so the operation answers 401 itself', async () => {
    const handler = loadHandler<Authorizer>('authorizer', store.store.endpoint);
    const result = await handler(authorizerEvent({}));
    expect(result).toMatchObject({
      principalId: 'anonymous',
      usageIdentifierKey: 'anonymous-usage-identifier-000',
      context: { authenticated: 'false', failure: 'missing_api_key' },
      policyDocument: { Statement: [{ Effect: 'Allow' }] },
    });
  });

  it('reports an unreachable key store as service_unavailable rather than throwing', async () => {
    const handler = loadHandler<Authorizer>('authorizer', 'http://127.0.0.1:9');
    const issued = issueApiKey('acme', 'x', new Date());
    const result = await handler(authorizerEvent({ authorization: `Bearer ${issued.apiKey}` }));
    expect(result.context).toEqual({ authenticated: 'false', failure: 'service_unavailable' });
  }, 20_000);
});
