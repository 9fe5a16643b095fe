import { jsonResponse } from '../../../lambda/api/http';
import { ANONYMOUS_LIMITS } from '../../../lambda/core/plans';
import { RateLimiter } from '../../../lambda/core/rate-limiter';
import { apiHandler } from '../../../lambda/middleware/api-handler';
import { callerOf } from '../../../lambda/middleware/rate-limit';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 30);
/** A CloudFront edge address: every viewer of that location reaches the origin from it. */
const EDGE_IP = '130.176.0.7';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

/** A keyless request from the edge, as the authorizer describes it when the origin secret matched. */
function fromEdge(viewerAddress: string | undefined) {
  const event = proxyEvent({
    principal: { authenticated: false, failure: 'missing_api_key' },
    resource: '/v1/openapi.json',
  });
  (event.requestContext.identity as { sourceIp: string }).sourceIp = EDGE_IP;
  if (viewerAddress !== undefined) {
    (event.requestContext.authorizer as Record<string, string>).viewerAddress = viewerAddress;
  }
  return event;
}

describe('rate limit per viewer behind the edge', () => {
  test('a keyless request is counted per viewer address the authorizer passed, else per source IP', () => {
    expect(callerOf(fromEdge('198.51.100.10')).identity).toBe('ip:198.51.100.10');
    expect(callerOf(fromEdge(undefined)).identity).toBe(`ip:${EDGE_IP}`);
  });

  test("one viewer's flood through an edge address never limits another viewer of the same address", async () => {
    const limiter = new RateLimiter(
      new RateLimitStore(store.documents, LOCAL_TABLE_NAMES.rateLimits),
      () => NOW,
    );
    const handler = apiHandler('getOpenApi', async () => jsonResponse(200, {}), {
      limiter,
      clock: () => NOW,
    });
    const statuses: number[] = [];
    for (let i = 0; i <= ANONYMOUS_LIMITS.perMinute; i++) {
      statuses.push((await handler(fromEdge('198.51.100.66'), lambdaContext)).statusCode);
    }
    expect(statuses.slice(0, ANONYMOUS_LIMITS.perMinute).every((status) => status === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const other = await handler(fromEdge('203.0.113.20'), lambdaContext);
    expect(other.statusCode).toBe(200);
    expect(other.headers?.['X-RateLimit-Remaining']).toBe(String(ANONYMOUS_LIMITS.perMinute - 1));
  });
});
