import { MemberRoles } from '../../../lambda/core/members';
import { MemberRepository } from '../../../lambda/store/member-repository';
import { jsonResponse } from '../../../lambda/api/http';
import { ConsoleSessions } from '../../../lambda/core/console-session';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../../lambda/core/edge-request';
import { ANONYMOUS_LIMITS } from '../../../lambda/core/plans';
import { RateLimiter } from '../../../lambda/core/rate-limiter';
import { consoleHandler } from '../../../lambda/middleware/console-handler';
import { ConsoleSessionRepository } from '../../../lambda/store/console-session-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';

/**
 * Behind the console's CloudFront distribution every sign-in of a region arrives from a few
 * edge addresses: with the origin secret, the console counts each viewer, so one viewer
 * guessing tokens never locks out the others; without it, a claimed viewer is ignored.
 */
const NOW = Date.UTC(2026, 10, 23, 10, 0, 30);
const EDGE_IP = '130.176.0.7';
const SECRET = 'the-edge-origin-secret-value-of-this-test';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

function consoleRequest(viewer: string, secret: string | undefined) {
  const event = proxyEvent({
    principal: null,
    httpMethod: 'GET',
    path: '/console/api/usage',
    resource: '/console/api/{proxy+}',
    headers: {
      Host: 'console-api.example.com',
      [VIEWER_ADDRESS_HEADER]: `${viewer}:443`,
      ...(secret === undefined ? {} : { [ORIGIN_SECRET_HEADER]: secret }),
    },
  });
  (event.requestContext.identity as { sourceIp: string }).sourceIp = EDGE_IP;
  return event;
}

function handlerCountingIn(table: string) {
  const projects = new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects);
  const members = new MemberRepository(store.documents, LOCAL_TABLE_NAMES.projectMembers);
  return consoleHandler(undefined, async () => jsonResponse(200, {}), {
    projects,
    limiter: new RateLimiter(new RateLimitStore(store.documents, table), () => NOW),
    sessions: new ConsoleSessions({
      store: new ConsoleSessionRepository(store.documents, LOCAL_TABLE_NAMES.consoleSessions),
      projects,
      members,
      roles: new MemberRoles(members, () => NOW),
      clock: () => NOW,
    }),
    consoleOrigins: ['https://console.example.com'],
    originSecrets: async () => [SECRET],
  });
}

async function remainingAfter(
  handler: ReturnType<typeof handlerCountingIn>,
  event: ReturnType<typeof consoleRequest>,
) {
  const response = await handler(event, lambdaContext);
  expect(response.statusCode).toBe(401);
  return Number(response.headers?.['X-RateLimit-Remaining']);
}

test('with the origin secret, each viewer has the anonymous allowance of its own', async () => {
  const handler = handlerCountingIn(LOCAL_TABLE_NAMES.rateLimits);
  const first = await remainingAfter(handler, consoleRequest('198.51.100.1', SECRET));
  expect(first).toBe(ANONYMOUS_LIMITS.perMinute - 1);
  expect(await remainingAfter(handler, consoleRequest('198.51.100.1', SECRET))).toBe(first - 1);
  // Another viewer behind the same edge address starts from a full allowance.
  expect(await remainingAfter(handler, consoleRequest('198.51.100.2', SECRET))).toBe(first);
});

test('without it, or with a wrong one, the claimed viewer is ignored: counted per source address', async () => {
  const handler = handlerCountingIn(LOCAL_TABLE_NAMES.rateLimits);
  const first = await remainingAfter(handler, consoleRequest('198.51.100.3', undefined));
  expect(await remainingAfter(handler, consoleRequest('198.51.100.4', 'not-the-secret'))).toBe(first - 1);
  expect(await remainingAfter(handler, consoleRequest('198.51.100.5', undefined))).toBe(first - 2);
});
