import Ajv from 'ajv-draft-04';
import { API_VERSION_PREFIX, ROUTES } from '../../lambda/api/routes';
import { INVALID_BODIES, MALFORMED_JSON_BODIES } from '../support/invalid-bodies';
import { resourcesOfType } from '../lib/template-queries';
import { synthEnvironment } from '../support/synth';
import { expectError, startTestApi, type TestApi } from '../support/test-api';

/**
 * The local server stands in for API Gateway: what it answers for unknown paths and
 * methods must be what the synthesized stack answers, and it must serve exactly the
 * methods the stack deploys.
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
  apiKey = (await t.issueKey()).apiKey;
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

  it('answer an unknown method with the 405 the ANY mock deploys', async () => {
    for (const mock of methods.filter((m) => m.HttpMethod === 'ANY')) {
      const integration = mock.Integration as {
        IntegrationResponses: {
          ResponseTemplates: Record<string, string>;
          ResponseParameters: Record<string, string>;
        }[];
      };
      const [deployed] = integration.IntegrationResponses;
      const path = pathOf(mock.ResourceId).replace(API_VERSION_PREFIX, '').replace('{petId}', '1');
      const response = await t.request(path, { method: 'DELETE', apiKey });
      expect(response.headers.get('allow')).toBe(
        deployed?.ResponseParameters['method.response.header.Allow']?.replace(/'/g, ''),
      );
      expect(await response.json()).toEqual(
        JSON.parse(deployed?.ResponseTemplates['application/json'] ?? ''),
      );
    }
  });

  it('answer an unknown path with the body of the MISSING_AUTHENTICATION_TOKEN gateway response', async () => {
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

  it('refuse a createPet body exactly when the deployed model does, with the BAD_REQUEST_BODY gateway response', async () => {
    const createPet = methods.find((m) => m.OperationName === 'createPet');
    const modelRef =
      (createPet?.RequestModels as Record<string, { Ref: string }>)['application/json']?.Ref ?? '';
    const deployedModel = resourcesOfType(template, 'AWS::ApiGateway::Model')[modelRef]?.Properties.Schema;
    const deployedAccepts = new Ajv({ strict: false }).compile(deployedModel as object);
    const gatewayResponse = Object.values(resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse'))
      .map((r) => r.Properties as { ResponseType: string; ResponseTemplates: Record<string, string> })
      .find((r) => r.ResponseType === 'BAD_REQUEST_BODY');
    const refusal = JSON.parse(gatewayResponse?.ResponseTemplates['application/json'] ?? '') as unknown;

    const bodies = [
      ...INVALID_BODIES.map(([, body]) => (typeof body === 'string' ? body : JSON.stringify(body))),
      ...MALFORMED_JSON_BODIES,
      '{"name":"Valid","categoryId":1}',
      '{"name":"Valid","categoryId":2,"status":"sold"}',
    ];
    for (const body of bodies) {
      let parsed: unknown;
      let deployedVerdict = false;
      try {
        parsed = JSON.parse(body);
        deployedVerdict = deployedAccepts(parsed) === true;
      } catch {
        deployedVerdict = false;
      }
      const response = await t.request('/pets', {
        method: 'POST',
        apiKey,
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      if (deployedVerdict) {
        expect([body, response.status]).toEqual([body, 201]);
      } else {
        expect([body, response.status, await response.json()]).toEqual([body, 400, refusal]);
      }
    }
  });
});
