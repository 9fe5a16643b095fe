import { API_VERSION_PREFIX, ROUTES } from '../../lambda/api/routes';
import { INVALID_BODIES, MALFORMED_JSON_BODIES } from '../support/invalid-bodies';
import { resourcesOfType } from '../lib/template-queries';
import { synthEnvironment } from '../support/synth';
import { expectError, startTestApi, type TestApi } from '../support/test-api';

/**
 * The local server stands in for API Gateway: it must route exactly as the synthesized
 * stack does (each operation's method, the catch-all's ANY methods for every other path
 * and method under /v1, the gateway's own 404 outside it).
 */
const template = synthEnvironment('production');
const methods = Object.values(resourcesOfType(template, 'AWS::ApiGateway::Method')).map((m) => m.Properties);
const resources = resourcesOfType(template, 'AWS::ApiGateway::Resource');

/** Full path of a resource logical id, rebuilt from PathPart and ParentId. */
function pathOf(resourceRef: unknown): string {
  const id = (resourceRef as { Ref?: string }).Ref;
  if (!id || !resources[id]) return '';
  const props = resources[id].Properties as { PathPart: string; ParentId: unknown };
  return `${pathOf(props.ParentId)}/${props.PathPart}`;
}

let t: TestApi;
let apiKey: string;
beforeAll(async () => {
  t = await startTestApi();
  // A plan whose minute this whole file cannot spend.
  apiKey = (await t.issueKey('business')).apiKey;
});
afterAll(() => t.close());

describe('local gateway and deployed stack agree', () => {
  it('serve the same operation methods', async () => {
    const deployed = methods
      .filter((m) => m.HttpMethod !== 'ANY')
      .map((m) => `${m.HttpMethod} ${pathOf(m.ResourceId)}`)
      .sort();
    expect(deployed).toEqual(ROUTES.map((r) => `${r.method} ${API_VERSION_PREFIX}${r.path}`).sort());
    for (const route of ROUTES) {
      const path = route.path.replace('{petId}', '1');
      const response = await t.request(path, {
        method: route.method,
        apiKey,
        ...(route.method === 'POST'
          ? { headers: { 'Content-Type': 'application/json' }, body: '{"name":"a","categoryId":1}' }
          : {}),
      });
      expect([200, 201, 404]).toContain(response.status);
      if (response.status === 404)
        expect((await response.json()) as { code: string }).toMatchObject({ code: 'pet_not_found' });
    }
  });

  it('send every other method and path under /v1 to the catch-all function the ANY methods deploy', async () => {
    const anyMethods = methods.filter((m) => m.HttpMethod === 'ANY');
    const catchAllFunctions = new Set(
      anyMethods.map((m) => JSON.stringify((m.Integration as { Uri: unknown }).Uri)),
    );
    expect(catchAllFunctions.size).toBe(1);
    expect(anyMethods.map((m) => pathOf(m.ResourceId))).toEqual(
      expect.arrayContaining([API_VERSION_PREFIX, `${API_VERSION_PREFIX}/{proxy+}`]),
    );
    for (const any of anyMethods) {
      const resourcePath = pathOf(any.ResourceId);
      // What the deployed resource has besides ANY: a 405 lists exactly those.
      const own = methods
        .filter((m) => m.HttpMethod !== 'ANY' && pathOf(m.ResourceId) === resourcePath)
        .map((m) => String(m.HttpMethod))
        .sort();
      const path = resourcePath
        .replace('{petId}', '1')
        .replace('{proxy+}', 'no/such/path')
        .replace(API_VERSION_PREFIX, '');
      const response = await t.request(`${t.baseUrl}${path}`, { method: 'DELETE', apiKey });
      expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
      if (own.length > 0) {
        await expectError(response, 405, 'method_not_allowed');
        expect(response.headers.get('allow')?.split(', ').sort()).toEqual(own);
      } else {
        await expectError(response, 404, 'not_found');
      }
    }
  });

  it('answer a path outside /v1 with the body of the MISSING_AUTHENTICATION_TOKEN gateway response', async () => {
    const deployed = Object.values(resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse'))
      .map(
        (r) =>
          r.Properties as {
            ResponseType: string;
            StatusCode: string;
            ResponseTemplates: Record<string, string>;
          },
      )
      .find((r) => r.ResponseType === 'MISSING_AUTHENTICATION_TOKEN');
    const response = await t.request(`${t.baseUrl.replace(/\/v1$/, '')}/v2/pets`, { apiKey });
    const body = await expectError(response, Number(deployed?.StatusCode));
    expect(body).toEqual(JSON.parse(deployed?.ResponseTemplates['application/json'] ?? ''));
  });

  it('leave every body to the service: no model or validator is deployed, and the local server validates none', async () => {
    expect(resourcesOfType(template, 'AWS::ApiGateway::Model')).toEqual({});
    expect(resourcesOfType(template, 'AWS::ApiGateway::RequestValidator')).toEqual({});
    for (const body of [
      ...INVALID_BODIES.map(([, value]) => (typeof value === 'string' ? value : JSON.stringify(value))),
      ...MALFORMED_JSON_BODIES,
    ]) {
      const response = await t.request('/pets', {
        method: 'POST',
        apiKey,
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      // The service's answer (the rate-limit headers say a function ran), never a gateway's.
      expect([body, response.status, response.headers.get('x-ratelimit-limit') === null]).toEqual([
        body,
        400,
        false,
      ]);
    }
  });
});
