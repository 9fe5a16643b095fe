import { PLANS } from '../../../lambda/core/plans';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';
import { loadHandler } from '../../support/handlers';
import { INVALID_BODIES, MALFORMED_JSON_BODIES } from '../../support/invalid-bodies';
import type { ApiLambdaHandler as ProxyHandler } from '../../../lambda/middleware/api-handler';

/**
 * The handler is the only place a body is validated (API Gateway has no model): it checks
 * every body itself and says exactly what is wrong.
 */
let store: TestStore;
let handler: ProxyHandler;

beforeAll(async () => {
  store = await startTestStore();
  handler = loadHandler<ProxyHandler>('create-pet', store.store.endpoint);
});
afterAll(() => store.close());

const post = (body: string | Buffer) =>
  proxyEvent({
    httpMethod: 'POST',
    headers: { 'content-type': 'application/json', Host: 'h' },
    body: typeof body === 'string' ? body : body.toString('base64'),
    isBase64Encoded: typeof body !== 'string',
    principal: {
      authenticated: true,
      keyId: 'validationtests0',
      project: 'validation',
      plan: 'business',
      limits: PLANS.business.limits,
    },
  });

/** The handler's 400, which carries the rate-limit headers like every answer of the service. */
async function refusal(body: string | Buffer) {
  const result = await handler(post(body), lambdaContext);
  expect(result.headers?.['X-RateLimit-Limit']).toBe(String(PLANS.business.limits.perMinute));
  return { status: result.statusCode, ...(JSON.parse(result.body) as { code: string; message: string }) };
}

const text = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body));

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
