import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { gatewayAcceptsBody } from '../../../local/request-validation';
import { routeFor } from '../../../lambda/api/routes';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';
import { INVALID_BODIES, MALFORMED_JSON_BODIES } from '../../support/invalid-bodies';

type ProxyHandler = (
  event: APIGatewayProxyEvent,
  context: typeof lambdaContext,
) => Promise<APIGatewayProxyResult>;

/**
 * The gateway refuses bad bodies before the function runs, but the handler must not rely
 * on it: it checks every body itself and says exactly what is wrong.
 */
let store: TestStore;
let handler: ProxyHandler;

beforeAll(async () => {
  store = await startTestStore();
  process.env.DYNAMODB_ENDPOINT = store.store.endpoint;
  process.env.PETS_TABLE_NAME = LOCAL_TABLE_NAMES.pets;
  process.env.RATE_LIMITS_TABLE_NAME = LOCAL_TABLE_NAMES.rateLimits;
  jest.isolateModules(() => {
    handler = require('../../../lambda/handlers/create-pet').handler;
  });
});
afterAll(() => store.close());

const post = (body: string | Buffer) =>
  proxyEvent({
    httpMethod: 'POST',
    headers: { 'content-type': 'application/json', Host: 'h' },
    body: typeof body === 'string' ? body : body.toString('base64'),
    isBase64Encoded: typeof body !== 'string',
    principal: { authenticated: true, keyId: 'validationtests0', plan: 'business' },
  });

async function refusal(body: string | Buffer) {
  const result = await handler(post(body), lambdaContext);
  return { status: result.statusCode, ...(JSON.parse(result.body) as { code: string; message: string }) };
}

const text = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body));
const createPet = routeFor('createPet');

describe('createPet handler validates every body itself', () => {
  it.each(INVALID_BODIES)('400 invalid_body: %s', async (_case, body, message) => {
    const error = await refusal(text(body));
    expect(error).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(error.message).toMatch(message);
  });

  it.each(MALFORMED_JSON_BODIES)('400 malformed_json: %s', async (body) => {
    const error = await refusal(body);
    expect(error).toMatchObject({ status: 400, code: 'malformed_json' });
    expect(error.message).toMatch(/not valid JSON/);
  });

  it('400 malformed_json: a body that is not UTF-8', async () => {
    const error = await refusal(Buffer.from([0x7b, 0x22, 0x6e, 0xff, 0xfe, 0x22, 0x7d]));
    expect(error).toMatchObject({
      status: 400,
      code: 'malformed_json',
      message: expect.stringMatching(/UTF-8/),
    });
  });
});

describe('the request model refuses what the handler refuses', () => {
  const body = createPet.requestBody;
  if (!body) throw new Error('createPet has no request body');
  const accepts = (value: unknown) => gatewayAcceptsBody(body, 'application/json', Buffer.from(text(value)));

  it.each(INVALID_BODIES)('refuses %s', (_case, value) => {
    expect(accepts(value)).toBe(false);
  });

  it.each(MALFORMED_JSON_BODIES)('refuses malformed JSON %s', (value) => {
    expect(accepts(value)).toBe(false);
  });

  it('accepts valid pets, at the limits too', () => {
    expect(accepts({ name: 'Rex', categoryId: 1 })).toBe(true);
    expect(accepts({ name: 'x'.repeat(100), categoryId: Number.MAX_SAFE_INTEGER, status: 'sold' })).toBe(
      true,
    );
    expect(accepts({ name: '🐈'.repeat(100), categoryId: 1 })).toBe(true);
  });

  it('validates an empty body as {} and passes other media types through to the handler', () => {
    expect(gatewayAcceptsBody(body, 'application/json', Buffer.alloc(0))).toBe(false);
    expect(gatewayAcceptsBody(body, undefined, Buffer.from('{}'))).toBe(false);
    expect(gatewayAcceptsBody(body, 'Application/JSON; charset=utf-8', Buffer.from('{}'))).toBe(false);
    expect(gatewayAcceptsBody(body, 'text/plain', Buffer.from('{}'))).toBe(true);
  });
});
