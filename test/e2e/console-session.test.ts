import { ACTIONS } from '../../lambda/core/permissions';
import { ANONYMOUS_LIMITS } from '../../lambda/core/plans';
import { issueConsoleToken } from '../../lambda/core/project';
import {
  type ConsoleTestApi,
  expectError,
  sessionCookieOf,
  startConsoleTestApi,
} from '../support/local-console';
import { ConsoleSessions } from '../../lambda/core/console-session';
import { MemberRoles } from '../../lambda/core/members';
import { ConsoleSessionRepository } from '../../lambda/store/console-session-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { MemberRepository } from '../../lambda/store/member-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';

/**
 * The console's sessions and their cross-site defences, over real HTTP against local mode: the
 * cookie's attributes, the Origin and CSRF checks of every change made with the cookie, the
 * ends of a session (idle, lifetime, sign-out, a rotated console token), and the rate limit of
 * sign-ins. Time moves only when a test moves the service clock.
 */

const MINUTE = 60_000;

let t: ConsoleTestApi;
let acme: { name: string; consoleToken: string };
let documents: ReturnType<typeof createDocumentClient> | undefined;

beforeAll(async () => {
  t = await startConsoleTestApi();
  acme = await t.createProject('pro');
});

afterAll(async () => {
  documents?.destroy();
  await t.close();
});

describe('sign-in', () => {
  it('answers 201 with the session and a __Host- cookie: HttpOnly, Secure, SameSite=Strict, Path=/, no Domain', async () => {
    const answer = await t.call('/session', {
      method: 'POST',
      origin: t.consoleOrigin,
      body: { token: acme.consoleToken },
    });

    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      project: acme.name,
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      idleTimeoutSeconds: 1800,
      expiresAt: new Date(t.now() + 12 * 60 * MINUTE).toISOString(),
      // A console token acts as an owner until the project has one (issue 26).
      role: 'owner',
      permissions: ACTIONS,
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const [cookie, ...others] = answer.headers.getSetCookie();
    expect(others).toEqual([]);
    const [pair, ...attributes] = (cookie ?? '').split('; ');
    expect(pair).toMatch(/^__Host-animal-store-session=[A-Za-z0-9_-]{43}$/);
    expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Strict', 'Secure']);
    expect(cookie).not.toMatch(/domain=/i);
  });

  it('gives a reloaded page its session and CSRF token again (GET /session with the cookie)', async () => {
    const signedIn = await t.signIn(acme.consoleToken);
    const answer = await t.call('/session', { cookie: signedIn.cookie });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ project: acme.name, csrfToken: signedIn.csrfToken });
  });

  it('refuses a sign-in without an Origin, from a foreign origin, and from a project address', async () => {
    const attempt = (origin?: string) =>
      t.call('/session', {
        method: 'POST',
        ...(origin === undefined ? {} : { origin }),
        body: { token: acme.consoleToken },
      });
    for (const origin of [undefined, 'https://evil.example', `http://${acme.name}.localhost:${t.port}`]) {
      const answer = await attempt(origin);
      expectError(answer, 403, 'csrf_origin_refused');
      expect(answer.headers.getSetCookie()).toEqual([]);
    }
  });

  it('refuses a wrong token with 401 invalid_console_token and sets no cookie', async () => {
    const wrong = issueConsoleToken(acme.name).token;
    const answer = await t.call('/session', {
      method: 'POST',
      origin: t.consoleOrigin,
      body: { token: wrong },
    });
    expectError(answer, 401, 'invalid_console_token');
    expect(sessionCookieOf(answer.headers)).toBeUndefined();
  });

  it('answers 401 not_signed_in without a cookie or a bearer token, and never caches', async () => {
    const answer = await t.call('/keys');
    expectError(answer, 401, 'not_signed_in');
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });
});

describe('changes made with the session cookie', () => {
  let session: { cookie: string; csrfToken: string };
  beforeAll(async () => {
    session = await t.signIn(acme.consoleToken);
  });

  const createKey = (request: { origin?: string; csrfToken?: string }) =>
    t.call('/keys', { method: 'POST', cookie: session.cookie, body: { name: 'csrf probe' }, ...request });

  it('go through with the console Origin and the CSRF token', async () => {
    const answer = await createKey({ origin: t.consoleOrigin, csrfToken: session.csrfToken });
    expect(answer.status).toBe(201);
  });

  it('are refused without the CSRF token, or with another one', async () => {
    expectError(await createKey({ origin: t.consoleOrigin }), 403, 'csrf_token_invalid');
    const other = await t.signIn(acme.consoleToken);
    expectError(
      await createKey({ origin: t.consoleOrigin, csrfToken: other.csrfToken }),
      403,
      'csrf_token_invalid',
    );
  });

  it('are refused without an Origin, from a foreign origin, and from a project address (same site)', async () => {
    const { csrfToken } = session;
    expectError(await createKey({ csrfToken }), 403, 'csrf_origin_refused');
    expectError(await createKey({ origin: 'https://evil.example', csrfToken }), 403, 'csrf_origin_refused');
    expectError(
      await createKey({ origin: `http://${acme.name}.localhost:${t.port}`, csrfToken }),
      403,
      'csrf_origin_refused',
    );
    const keys = await t.call('/keys', { cookie: session.cookie });
    expect((keys.body.keys as unknown[]).length).toBe(1);
  });

  it('reads need neither (a GET changes nothing)', async () => {
    expect((await t.call('/usage', { cookie: session.cookie })).status).toBe(200);
  });

  it('a tool with the bearer token needs neither, and has no session', async () => {
    const created = await t.call('/keys', {
      method: 'POST',
      bearer: acme.consoleToken,
      body: { name: 'tool' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.getSetCookie()).toEqual([]);
    expectError(await t.call('/session', { bearer: acme.consoleToken }), 401, 'not_signed_in');
  });
});

describe('the end of a session', () => {
  const expectEnded = async (cookie: string) => {
    const answer = await t.call('/session', { cookie });
    expectError(answer, 401, 'session_ended');
    expect(answer.body.message).toMatch(/Sign in again/);
    // The browser drops the dead cookie.
    expect(answer.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^__Host-animal-store-session=; .*Max-Age=0/),
    ]);
  };

  it('after 30 idle minutes', async () => {
    const { cookie } = await t.signIn(acme.consoleToken);
    t.advance(29 * MINUTE);
    expect((await t.call('/session', { cookie })).status).toBe(200);
    t.advance(29 * MINUTE);
    expect((await t.call('/session', { cookie })).status).toBe(200);
    t.advance(30 * MINUTE);
    await expectEnded(cookie);
  });

  it('12 hours after sign-in, however busy', async () => {
    const { cookie } = await t.signIn(acme.consoleToken);
    // A request every 29 minutes, a minute inside the idle timeout, until the 12 hours pass.
    for (let elapsed = 0; elapsed < 12 * 60 - 29; elapsed += 29) {
      t.advance(29 * MINUTE);
      expect((await t.call('/session', { cookie })).status).toBe(200);
    }
    t.advance(29 * MINUTE);
    await expectEnded(cookie);
  });

  it('at sign-out: 204, the cookie cleared, the session gone server-side', async () => {
    const { cookie, csrfToken } = await t.signIn(acme.consoleToken);
    const out = await t.call('/session', { method: 'DELETE', cookie, origin: t.consoleOrigin, csrfToken });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()).toEqual([
      '__Host-animal-store-session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict',
    ]);
    await expectEnded(cookie);
  });

  it('sign-out is a change: refused without the CSRF token', async () => {
    const { cookie } = await t.signIn(acme.consoleToken);
    expectError(
      await t.call('/session', { method: 'DELETE', cookie, origin: t.consoleOrigin }),
      403,
      'csrf_token_invalid',
    );
    expect((await t.call('/session', { cookie })).status).toBe(200);
  });

  it('when the console token is rotated: every session of the project, and the old token too', async () => {
    const globex = await t.createProject('pro');
    const first = await t.signIn(globex.consoleToken);
    const second = await t.signIn(globex.consoleToken);
    const untouched = await t.signIn(acme.consoleToken);

    const rotated = issueConsoleToken(globex.name);
    await t.projects.setConsoleToken(globex.name, rotated.hash, new Date(t.now()));

    await expectEnded(first.cookie);
    await expectEnded(second.cookie);
    expect((await t.call('/session', { cookie: untouched.cookie })).status).toBe(200);
    expectError(await t.call('/keys', { bearer: globex.consoleToken }), 401, 'invalid_console_token');
    expect((await t.signIn(rotated.token)).cookie).toEqual(expect.any(String));
  });

  it('an unknown or malformed cookie is an ended session', async () => {
    await expectEnded('A'.repeat(43));
    await expectEnded('not a secret');
  });
});

describe('wrong tokens at sign-in', () => {
  it('are counted per client IP against the anonymous allowance: 429 after it', async () => {
    // A new UTC day: this client's earlier requests are in yesterday's counter.
    t.advance(24 * 60 * MINUTE);
    const attempt = () =>
      t.call('/session', {
        method: 'POST',
        origin: t.consoleOrigin,
        body: { token: issueConsoleToken(acme.name).token },
      });
    for (let index = 0; index < ANONYMOUS_LIMITS.perMinute; index++) {
      expectError(await attempt(), 401, 'invalid_console_token');
    }
    const refused = await attempt();
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toEqual(expect.any(String));
    // The right token is no way around it either.
    expectError(
      await t.call('/session', {
        method: 'POST',
        origin: t.consoleOrigin,
        body: { token: acme.consoleToken },
      }),
      429,
      'rate_limited',
    );
  });
});

describe('the cap of 50 live sessions per project', () => {
  // Sign-ins are counted per client IP against the anonymous allowance: a new minute when it is spent.
  let spentThisMinute = 0;
  const pace = (count = 1) => {
    if (spentThisMinute + count > ANONYMOUS_LIMITS.perMinute) {
      t.advance(MINUTE);
      spentThisMinute = 0;
    }
    spentThisMinute += count;
  };
  const signIn = (consoleToken: string) => {
    pace();
    return t.call('/session', { method: 'POST', origin: t.consoleOrigin, body: { token: consoleToken } });
  };
  // The places before the cap are a starting point, not the subject: taken by the sign-in rules in
  // this process (the sign-ins at and past the cap go over HTTP).
  // The filler never reaches the cap, so its sign-ins need not count the project's live sessions
  // (each count read all of them: the fill's cost grew with the square of the count).
  const signInMany = async (consoleToken: string, count: number) => {
    documents ??= createDocumentClient(t.api.dynamodbEndpoint);
    const store = new ConsoleSessionRepository(documents, LOCAL_TABLE_NAMES.consoleSessions);
    const members = new MemberRepository(documents, LOCAL_TABLE_NAMES.projectMembers);
    const filler = new ConsoleSessions({
      store: Object.assign(Object.create(store) as ConsoleSessionRepository, {
        listUnexpired: () => Promise.resolve([]),
      }),
      projects: t.projects,
      members,
      roles: new MemberRoles(members, t.now),
      clock: t.now,
    });
    for (let index = 0; index < count; index++) {
      expect(await filler.signIn(consoleToken)).toMatchObject({ signedIn: true });
    }
  };

  beforeAll(() => {
    // A new UTC day: earlier tests spent this client's allowance.
    t.advance(24 * 60 * MINUTE);
  });

  it('refuses the 51st with 409 too_many_sessions and no cookie; a sign-out or idle sessions free places', async () => {
    const owner = await t.createProject('pro');
    await signInMany(owner.consoleToken, 49);
    pace();
    const last = await t.signIn(owner.consoleToken);

    const refused = await signIn(owner.consoleToken);
    expectError(refused, 409, 'too_many_sessions');
    expect(refused.body.message).toMatch(/50 live console sessions.*sign out/);
    expect(refused.headers.getSetCookie()).toEqual([]);
    // Another project's sessions are its own.
    expect((await signIn(acme.consoleToken)).status).toBe(201);

    const signedOut = await t.call('/session', {
      method: 'DELETE',
      cookie: last.cookie,
      origin: t.consoleOrigin,
      csrfToken: last.csrfToken,
    });
    expect(signedOut.status).toBe(204);
    expect((await signIn(owner.consoleToken)).status).toBe(201);
    expectError(await signIn(owner.consoleToken), 409, 'too_many_sessions');

    // 31 minutes without a request: every one of them has ended, and none counts.
    t.advance(31 * MINUTE);
    spentThisMinute = 0;
    expect((await signIn(owner.consoleToken)).status).toBe(201);
  });

  it('holds under sign-ins at once near the cap: never more than 50 live', async () => {
    const owner = await t.createProject('pro');
    const burst = Math.min(20, ANONYMOUS_LIMITS.perMinute);
    const before = 50 - burst / 2;
    await signInMany(owner.consoleToken, before);

    pace(burst);
    const answers = await Promise.all(
      Array.from({ length: burst }, () =>
        t.call('/session', { method: 'POST', origin: t.consoleOrigin, body: { token: owner.consoleToken } }),
      ),
    );
    const made = answers.filter((answer) => answer.status === 201).length;
    for (const answer of answers.filter((one) => one.status !== 201)) {
      expectError(answer, 409, 'too_many_sessions');
    }
    expect(made).toBeLessThanOrEqual(burst / 2);
    // Sign-ins at once may refuse each other, never exceed the cap: one by one, the rest fill it exactly.
    let more = 0;
    while ((await signIn(owner.consoleToken)).status === 201) more += 1;
    expect(before + made + more).toBe(50);
  });
});
