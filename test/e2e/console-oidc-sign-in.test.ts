import { request as httpRequest } from 'node:http';
import { SIGN_IN_COOKIE_NAME } from '../../lambda/api/console-cookies';
import { SIGN_IN_PROVIDER_PATH, SIGN_OUT_PATH } from '../../lambda/api/console-navigation';
import { SIGN_IN_CALLBACK_PATH, SIGN_IN_START_PATH } from '../../lambda/api/console-routes';
import type { Person } from '../../lambda/core/identity';
import { MAX_LIVE_SESSIONS_PER_PROJECT } from '../../lambda/core/console-session';
import { DEV_OWNER, DEV_VIEWER, type DevPerson } from '../../local/dev-people';
import { LOCAL_CONSOLE_CLIENT_ID } from '../../local/local-sign-in';
import { newClientSecret, startLocalOidcProvider } from '../../local/oidc-provider';
import type { LocalApi } from '../../local/server';
import { consolePeople } from '../support/console-people';
import { type ConsoleTestApi, sessionCookieOf, startConsoleTestApi } from '../support/local-console';
import { signInAtProvider } from '../support/local-oidc';

/**
 * The console's sign-in routes in local mode, over real HTTP, with the real local provider:
 * the start's sealed cookie and redirect, and the callback's refusals: each tamper the issue
 * names (a tampered state, a replayed code, a wrong nonce, a foreign issuer), refused with no
 * session, and a provider that cannot be reached.
 */

interface Answer {
  readonly status: number;
  readonly location?: string;
  readonly cookies: readonly string[];
  readonly body: Record<string, unknown>;
}

let t: ConsoleTestApi;
let api: LocalApi;
let people: ReturnType<typeof consolePeople>;

beforeAll(async () => {
  t = await startConsoleTestApi({ openIdProvider: true });
  api = t.api;
  people = consolePeople(t);
});

// Each test in a fresh minute of the limiter, which counts both paths per client address with
// anonymous calls (20 a minute): the file's sign-ins together would pass that.
beforeEach(() => t.advance(60_000));

afterAll(async () => {
  people?.close();
  await t?.close();
});

/** The development person as the local provider vouches for them. */
function personOf(person: DevPerson): Person {
  return {
    issuer: api.openIdProvider?.issuer ?? '',
    subject: person.subject,
    email: person.email,
    emailVerified: true,
    name: person.name,
  };
}

/** A request to the console at `host` (localhost, as a browser names it), sent to the loopback address. */
function visit(
  path: string,
  {
    cookie,
    host,
    method,
    headers,
  }: { cookie?: string; host?: string; method?: string; headers?: Record<string, string> } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: api.port,
        path,
        method: method ?? 'GET',
        headers: { Host: host ?? `localhost:${api.port}`, ...(cookie ? { Cookie: cookie } : {}), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            ...(response.headers.location ? { location: response.headers.location } : {}),
            cookies: response.headers['set-cookie'] ?? [],
            body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          });
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

function signInCookieOf(answer: Answer): string | undefined {
  const cookie = answer.cookies.find((value) => value.startsWith(`${SIGN_IN_COOKIE_NAME}=`));
  return cookie?.split(';')[0];
}

/**
 * A started sign-in: its cookie, and the provider's return after the owner signed in. `alter`
 * changes the authorization request on its way to the provider (an attacker's).
 */
async function returnFromProvider(
  person: DevPerson = DEV_OWNER,
  alter: (authorization: URL) => void = () => {},
  startPath = `${SIGN_IN_START_PATH}?returnTo=/console/keys`,
) {
  const started = await visit(startPath);
  const cookie = signInCookieOf(started) ?? '';
  const authorization = new URL(started.location ?? '');
  alter(authorization);
  const provided = await signInAtProvider(authorization.href, person.email, person.password);
  const callback = new URL(provided.callbackUrl ?? '');
  return { cookie, callback };
}

function expectError(answer: Answer, status: number, code: string) {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { code, status, message: expect.any(String) },
  });
}

/** A refused return: 401 naming the check, the sign-in cookie cleared, and no session. */
function expectRefused(answer: Answer, check: string) {
  expectError(answer, 401, 'sign_in_refused');
  expect(answer.body.message).toContain(`(${check})`);
  expect(answer.cookies).toEqual([
    `${SIGN_IN_COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`,
  ]);
}

test('the start sends the browser to the provider, keeping the sign-in in a sealed, HttpOnly, Lax __Host- cookie', async () => {
  const started = await visit(`${SIGN_IN_START_PATH}?returnTo=/console/keys`);
  expect(started.status).toBe(302);
  const authorization = new URL(started.location ?? '');
  expect(authorization.origin).toBe(api.openIdProvider?.issuer);
  expect(authorization.searchParams.get('redirect_uri')).toBe(
    `http://localhost:${api.port}${SIGN_IN_CALLBACK_PATH}`,
  );
  expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
  const [cookie] = started.cookies;
  expect(cookie).toMatch(
    new RegExp(`^${SIGN_IN_COOKIE_NAME}=[\\w-]+; Path=/; Max-Age=600; HttpOnly; Secure; SameSite=Lax$`),
  );
  // Sealed: neither the state, the nonce nor the verifier can be read from it.
  const value = signInCookieOf(started) ?? '';
  expect(value).not.toContain(authorization.searchParams.get('state'));
  expect(value).not.toContain(authorization.searchParams.get('nonce'));
});

test('a start at the loopback address moves to localhost first, where the provider returns', async () => {
  const started = await visit(`${SIGN_IN_START_PATH}?returnTo=/console/`, { host: `127.0.0.1:${api.port}` });
  expect(started.status).toBe(302);
  expect(started.location).toBe(`http://localhost:${api.port}${SIGN_IN_START_PATH}?returnTo=%2Fconsole%2F`);
  expect(started.cookies).toEqual([]);
  const bare = await visit(SIGN_IN_START_PATH, { host: `127.0.0.1:${api.port}` });
  expect(bare.location).toBe(`http://localhost:${api.port}${SIGN_IN_START_PATH}`);
});

test('a return without a started sign-in, or with an altered cookie, is refused', async () => {
  const { cookie, callback } = await returnFromProvider();
  const path = `${callback.pathname}${callback.search}`;
  expectError(await visit(path), 400, 'sign_in_not_started');
  const altered = `${cookie.slice(0, -2)}${cookie.endsWith('A') ? 'BB' : 'AA'}`;
  const refused = await visit(path, { cookie: altered });
  expectError(refused, 400, 'sign_in_not_started');
  expect(refused.cookies).toEqual([
    `${SIGN_IN_COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`,
  ]);
});

test("a tampered state is refused, and the sign-in's cookie is cleared", async () => {
  const { cookie, callback } = await returnFromProvider();
  callback.searchParams.set('state', 'tampered');
  const refused = await visit(`${callback.pathname}${callback.search}`, { cookie });
  expectError(refused, 401, 'sign_in_refused');
  expect(refused.body.message).toContain('state_mismatch');
  expect(refused.cookies[0]).toMatch(new RegExp(`^${SIGN_IN_COOKIE_NAME}=; .*Max-Age=0`));
});

test("another browser's sign-in cookie does not fit this browser's return", async () => {
  const mine = await returnFromProvider();
  const theirs = await returnFromProvider();
  const refused = await visit(`${mine.callback.pathname}${mine.callback.search}`, { cookie: theirs.cookie });
  expectError(refused, 401, 'sign_in_refused');
});

/** What a browser sends with a top-level navigation (the provider's redirect back is one). */
const NAVIGATION = { 'Sec-Fetch-Mode': 'navigate', Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

test("a refused navigation lands on the console's page with the code and the check, never the words", async () => {
  // A minute of its own: the sign-in paths count against the anonymous allowance per client address.
  t.advance(60_000);
  const { cookie, callback } = await returnFromProvider();
  callback.searchParams.set('state', 'tampered');
  const refused = await visit(`${callback.pathname}${callback.search}`, { cookie, headers: NAVIGATION });
  expect(refused.status).toBe(303);
  expect(refused.location).toBe('/console/?sign-in-failed=sign_in_refused&refusal=state_mismatch');
  expect(refused.cookies).toEqual([
    `${SIGN_IN_COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`,
  ]);
  expect(refused.body).toEqual({});
  // Accept alone says so too, for a browser that sends no Sec-Fetch-Mode.
  const unstarted = await visit(`${callback.pathname}${callback.search}`, {
    headers: { Accept: 'text/html' },
  });
  expect({ status: unstarted.status, location: unstarted.location }).toEqual({
    status: 303,
    location: '/console/?sign-in-failed=sign_in_not_started',
  });
  // A script's fetch (Sec-Fetch-Mode: cors) keeps the Error body.
  const fetched = await visit(`${callback.pathname}${callback.search}`, {
    headers: { 'Sec-Fetch-Mode': 'cors', Accept: 'text/html' },
  });
  expectError(fetched, 400, 'sign_in_not_started');
});

test('the provider path answers where a provider is set up, so the page offers it', async () => {
  const asked = await visit(SIGN_IN_PROVIDER_PATH);
  expect({ status: asked.status, body: asked.body }).toEqual({
    status: 200,
    body: { identityProvider: true },
  });
});

test("sign-out leads on to the provider's end-session endpoint, which returns to the console's page", async () => {
  const left = await visit(SIGN_OUT_PATH, { headers: NAVIGATION });
  expect(left.status).toBe(302);
  const endSession = new URL(left.location ?? '');
  expect(endSession.origin).toBe(api.openIdProvider?.issuer);
  expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(
    `http://localhost:${api.port}/console/`,
  );
  expect(endSession.searchParams.get('client_id')).toBe('animal-store-console');
  // It changes nothing of the console's: no cookie set or cleared (the page ended its session first).
  expect(left.cookies).toEqual([]);
});

test('the sign-in paths take GET only, and exist only at the console host', async () => {
  const posted = await visit(SIGN_IN_START_PATH, { method: 'POST' });
  expectError(posted, 405, 'method_not_allowed');
  const atProject = await visit(SIGN_IN_START_PATH, { host: `dev.localhost:${api.port}` });
  expect(atProject.status).toBe(404);
  expect(atProject.location).toBeUndefined();
  expect(atProject.cookies).toEqual([]);
});

test('an unknown callback parameter is refused before anything is asked of the provider', async () => {
  expectError(await visit(`${SIGN_IN_CALLBACK_PATH}?code=x&state=y&extra=1`), 400, 'invalid_parameter');
});

describe('a person who is a member', () => {
  let project: string;
  beforeAll(async () => {
    t.advance(60_000);
    ({ name: project } = await t.createProject('pro'));
    await people.add(project, personOf(DEV_OWNER), 'owner');
  });

  test('signs in through the provider and lands in the console with a session of their project', async () => {
    const { cookie, callback } = await returnFromProvider();
    const returned = await visit(`${callback.pathname}${callback.search}`, { cookie });
    expect(returned.status).toBe(303);
    expect(returned.location).toBe('/console/keys');
    expect(returned.cookies[1]).toBe(
      `${SIGN_IN_COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`,
    );
    const session = sessionCookieOf(new Headers(returned.cookies.map((value) => ['set-cookie', value])));
    const answer = await t.call('/session', { cookie: session ?? '' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ project, role: 'owner', person: { email: DEV_OWNER.email } });
  });

  test('a start without a return path, or at a trailing slash, returns to the console page', async () => {
    for (const path of [SIGN_IN_START_PATH, `${SIGN_IN_START_PATH}/`]) {
      const { callback, cookie } = await returnFromProvider(DEV_OWNER, () => {}, path);
      const returned = await visit(`${callback.pathname}${callback.search}`, { cookie });
      expect({ status: returned.status, location: returned.location }).toEqual({
        status: 303,
        location: '/console/',
      });
    }
  });

  test('a replayed return (the same code, the same cookie) is refused', async () => {
    const { cookie, callback } = await returnFromProvider();
    const path = `${callback.pathname}${callback.search}`;
    expect((await visit(path, { cookie })).status).toBe(303);
    const replayed = await visit(path, { cookie });
    expectError(replayed, 401, 'sign_in_refused');
    expect(replayed.body.message).toContain('code_rejected');
  });

  test("a wrong nonce (the authorization request's, altered on its way) is refused", async () => {
    const { cookie, callback } = await returnFromProvider(DEV_OWNER, (authorization) =>
      authorization.searchParams.set('nonce', 'chosen-by-an-attacker'),
    );
    expectRefused(await visit(`${callback.pathname}${callback.search}`, { cookie }), 'nonce_mismatch');
  });

  test("a foreign issuer's return is refused, with its iss or without", async () => {
    // A provider of the attacker's, that knows the console's client id and callback.
    const foreign = await startLocalOidcProvider({
      port: 0,
      clients: [
        {
          clientId: LOCAL_CONSOLE_CLIENT_ID,
          clientSecret: newClientSecret(),
          redirectUris: [`http://localhost:${api.port}${SIGN_IN_CALLBACK_PATH}`],
        },
      ],
    });
    try {
      const toForeign = (authorization: URL) => {
        authorization.href = `${foreign.issuer}${authorization.pathname}${authorization.search}`;
      };
      const { cookie, callback } = await returnFromProvider(DEV_OWNER, toForeign);
      expect(callback.searchParams.get('iss')).toBe(foreign.issuer);
      expectRefused(await visit(`${callback.pathname}${callback.search}`, { cookie }), 'wrong_issuer');
      const again = await returnFromProvider(DEV_OWNER, toForeign);
      again.callback.searchParams.delete('iss');
      expectRefused(
        await visit(`${again.callback.pathname}${again.callback.search}`, { cookie: again.cookie }),
        'wrong_issuer',
      );
    } finally {
      await foreign.close();
    }
  });

  test('a person of no project gets a session in none, which reaches no project (issue 27)', async () => {
    const { cookie, callback } = await returnFromProvider(DEV_VIEWER);
    const returned = await visit(`${callback.pathname}${callback.search}`, { cookie });
    expect(returned.status).toBe(303);
    const session = sessionCookieOf(new Headers(returned.cookies.map((value) => ['set-cookie', value])));
    const answer = await t.call('/session', { cookie: session ?? '' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ permissions: [], person: { email: DEV_VIEWER.email }, projects: [] });
    expect(answer.body.project).toBeUndefined();
    const keys = await t.call('/keys', { cookie: session ?? '' });
    expect([keys.status, keys.body.code]).toEqual([403, 'no_project_yet']);
  });

  test("a sign-in past the project's live sessions is refused 409, naming the cap", async () => {
    // The owner's only project fills up with their sessions.
    let live = 0;
    while ((await people.startForPerson(personOf(DEV_OWNER), project)).signedIn) live += 1;
    expect(live).toBeGreaterThan(0);
    expect(live).toBeLessThanOrEqual(MAX_LIVE_SESSIONS_PER_PROJECT);
    const { cookie, callback } = await returnFromProvider();
    const refused = await visit(`${callback.pathname}${callback.search}`, { cookie });
    expectError(refused, 409, 'too_many_sessions');
    expect(refused.body.message).toContain(String(MAX_LIVE_SESSIONS_PER_PROJECT));
    expect(refused.cookies.some((value) => value.startsWith('__Host-animal-store-session='))).toBe(false);
  });
});

test('a provider that cannot be reached at the callback is 503, to retry', async () => {
  const { cookie, callback } = await returnFromProvider();
  await api.openIdProvider?.close();
  const answer = await visit(`${callback.pathname}${callback.search}`, { cookie });
  expectError(answer, 503, 'identity_provider_unavailable');
  expect(answer.cookies[0]).toMatch(new RegExp(`^${SIGN_IN_COOKIE_NAME}=; .*Max-Age=0`));
});
