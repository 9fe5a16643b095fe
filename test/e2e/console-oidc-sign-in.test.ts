import { request as httpRequest } from 'node:http';
import { SIGN_IN_COOKIE_NAME } from '../../lambda/api/console-cookies';
import { SIGN_IN_CALLBACK_PATH, SIGN_IN_START_PATH } from '../../lambda/api/console-routes';
import type { Person } from '../../lambda/core/identity';
import { DEV_OWNER, DEV_VIEWER, type DevPerson } from '../../local/dev-people';
import type { LocalApi } from '../../local/server';
import { consolePeople } from '../support/console-people';
import { type ConsoleTestApi, sessionCookieOf, startConsoleTestApi } from '../support/local-console';
import { signInAtProvider } from '../support/local-oidc';

/**
 * The console's sign-in routes in local mode, over real HTTP, with the real local provider:
 * the start's sealed cookie and redirect, and the callback's refusals.
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
  { cookie, host, method }: { cookie?: string; host?: string; method?: string } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: api.port,
        path,
        method: method ?? 'GET',
        headers: { Host: host ?? `localhost:${api.port}`, ...(cookie ? { Cookie: cookie } : {}) },
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

/** A started sign-in: its cookie, and the provider's return after the owner signed in. */
async function returnFromProvider(person: DevPerson = DEV_OWNER) {
  const started = await visit(`${SIGN_IN_START_PATH}?returnTo=/console/keys`);
  const cookie = signInCookieOf(started) ?? '';
  const provided = await signInAtProvider(started.location ?? '', person.email, person.password);
  const callback = new URL(provided.callbackUrl ?? '');
  return { cookie, callback };
}

function expectError(answer: Answer, status: number, code: string) {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { code, status, message: expect.any(String) },
  });
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

  test('a replayed return (the same code, the same cookie) is refused', async () => {
    const { cookie, callback } = await returnFromProvider();
    const path = `${callback.pathname}${callback.search}`;
    expect((await visit(path, { cookie })).status).toBe(303);
    const replayed = await visit(path, { cookie });
    expectError(replayed, 401, 'sign_in_refused');
    expect(replayed.body.message).toContain('code_rejected');
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
});
