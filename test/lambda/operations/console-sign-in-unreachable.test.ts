import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGN_IN_COOKIE_NAME } from '../../../lambda/api/console-cookies';
import { SIGN_OUT_PATH } from '../../../lambda/api/console-navigation';
import { SIGN_IN_CALLBACK_PATH, SIGN_IN_START_PATH } from '../../../lambda/api/console-routes';
import { RateLimiter } from '../../../lambda/core/rate-limiter';
import { consoleSignIn } from '../../../lambda/operations/console-sign-in';
import { OpenIdIdentityProvider } from '../../../lambda/store/openid-identity-provider';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';

/**
 * The sign-in's paths while the identity provider cannot be reached (its issuer a loopback port
 * nobody listens on): the sign-out still ends at the console's page, the provider's session left
 * to end another time; a start, and a callback with no sign-in begun, land a browser on the
 * page with the refusal's code, the sign-in's cookie cleared. Over the embedded store's limiter.
 */

const NOW = Date.parse('2031-03-04T05:06:00.000Z');
const CALLBACK_URL = `https://console.pets.test${SIGN_IN_CALLBACK_PATH}`;

let store: TestStore;
let paths: ReturnType<typeof consoleSignIn>;

/** A loopback port that was free a moment ago, and is closed now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return port;
}

beforeAll(async () => {
  store = await startTestStore();
  const identity = new OpenIdIdentityProvider({
    issuer: `http://127.0.0.1:${await closedPort()}/unreachable`,
    clientId: 'console',
    clientSecret: async () => 'not-used',
    redirectUri: CALLBACK_URL,
  });
  const pendingKey = randomBytes(32);
  paths = consoleSignIn({
    identity,
    pendingKey: async () => pendingKey,
    callbackUrl: CALLBACK_URL,
    startPersonSession: async () => {
      throw new Error('no session starts without a provider');
    },
    limiter: new RateLimiter(new RateLimitStore(store.documents, LOCAL_TABLE_NAMES.rateLimits), () => NOW),
    clock: () => NOW,
  });
});

afterAll(() => store.close());

/** A browser's navigation to the path: its status, Location and Set-Cookie values. */
async function navigate(path: string) {
  const handler = paths(path);
  if (!handler) throw new Error(`no sign-in path ${path}`);
  const answer = await handler(
    proxyEvent({
      path,
      httpMethod: 'GET',
      headers: { 'Sec-Fetch-Mode': 'navigate', Accept: 'text/html' },
      principal: null,
    }),
    lambdaContext,
  );
  return {
    status: answer.statusCode,
    location: answer.headers?.Location,
    cookies: (answer.multiValueHeaders?.['Set-Cookie'] ?? []).map(String),
  };
}

test("the sign-out ends at the console's page when the provider's sign-out cannot be found", async () => {
  expect(await navigate(SIGN_OUT_PATH)).toEqual({ status: 303, location: '/console/', cookies: [] });
});

test("a start lands on the page told the provider is unavailable, the sign-in's cookie cleared", async () => {
  const landed = await navigate(SIGN_IN_START_PATH);
  expect(landed.status).toBe(303);
  expect(landed.location).toBe(
    '/console/?sign-in-failed=identity_provider_unavailable&refusal=provider_unavailable',
  );
  expect(landed.cookies).toEqual([expect.stringMatching(new RegExp(`^${SIGN_IN_COOKIE_NAME}=;.*Max-Age=0`))]);
});

test('a callback with no sign-in begun lands on the page with its code', async () => {
  const landed = await navigate(SIGN_IN_CALLBACK_PATH);
  expect(landed.status).toBe(303);
  expect(landed.location).toBe('/console/?sign-in-failed=sign_in_not_started');
});
