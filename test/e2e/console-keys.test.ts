import { PLANS } from '../../lambda/core/plans';
import { type ConsoleTestApi, expectError, startConsoleTestApi } from '../support/local-console';

/**
 * The console's keys and overview over real HTTP against local mode: a project's owner creates,
 * uses, rotates and revokes its keys, never sees another project's, and sees its API calls
 * counted against its plan.
 */

let t: ConsoleTestApi;
let acme: { name: string; consoleToken: string };
let globex: { name: string; consoleToken: string };
let session: { cookie: string; csrfToken: string };

/** A change made from the console page with acme's session. */
const change = (method: string, path: string, body?: unknown) =>
  t.call(path, {
    method,
    cookie: session.cookie,
    origin: t.consoleOrigin,
    csrfToken: session.csrfToken,
    ...(body === undefined ? {} : { body }),
  });

const listPets = (apiKey: string) =>
  fetch(`${t.apiBase}/pets`, { headers: { Authorization: `Bearer ${apiKey}` } }).then(
    (response) => response.status,
  );

beforeAll(async () => {
  t = await startConsoleTestApi();
  acme = await t.createProject('pro');
  globex = await t.createProject('free');
  session = await t.signIn(acme.consoleToken);
});

afterAll(async () => {
  await t.close();
});

describe('keys', () => {
  let created: { apiKey: string; keyId: string };

  it('creates a key: the secret once, the key usable at once', async () => {
    const answer = await change('POST', '/keys', { name: 'ci' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      apiKey: expect.stringMatching(/^ask_[a-z2-7]{16}_[A-Za-z0-9_-]{43}$/),
      key: {
        keyId: expect.stringMatching(/^[a-z2-7]{16}$/),
        name: 'ci',
        createdAt: new Date(t.now()).toISOString(),
      },
    });
    created = { apiKey: answer.body.apiKey as string, keyId: (answer.body.key as { keyId: string }).keyId };
    expect(await listPets(created.apiKey)).toBe(200);
  });

  it('lists the project’s keys, never a secret or a hash', async () => {
    const answer = await t.call('/keys', { cookie: session.cookie });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      keys: [{ keyId: created.keyId, name: 'ci', createdAt: expect.any(String) }],
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/ask_|secret|hash/i);
  });

  it('rotates a key: a new one of the same name, the old one revoked', async () => {
    const answer = await change('POST', `/keys/${created.keyId}/rotate`);
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      apiKey: expect.stringMatching(/^ask_/),
      key: { keyId: expect.any(String), name: 'ci', createdAt: expect.any(String) },
      replaces: created.keyId,
    });
    expect((await t.keys.get(created.keyId))?.revokedAt).toEqual(expect.any(String));
    const replacement = answer.body.apiKey as string;
    // Past the authorizer's 30-second cache: the old key is refused, the new one works.
    t.advance(31_000);
    expect(await listPets(created.apiKey)).toBe(401);
    expect(await listPets(replacement)).toBe(200);
    expectError(await change('POST', `/keys/${created.keyId}/rotate`), 409, 'key_revoked');
  });

  it('revokes a key (again is fine: the first time is kept)', async () => {
    const { keyId } = await t.issueKey(acme.name);
    const first = await change('DELETE', `/keys/${keyId}`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      key: {
        keyId,
        name: 'test key',
        createdAt: expect.any(String),
        revokedAt: new Date(t.now()).toISOString(),
      },
    });
    t.advance(1_000);
    const again = await change('DELETE', `/keys/${keyId}`);
    expect(again.body).toEqual(first.body);
  });

  it('answers 404 key_not_found for an unknown key, and 400 for a key without a name', async () => {
    expectError(await change('DELETE', '/keys/aaaaaaaaaaaaaaaa'), 404, 'key_not_found');
    expectError(await change('POST', '/keys/aaaaaaaaaaaaaaaa/rotate'), 404, 'key_not_found');
    expectError(await change('POST', '/keys', {}), 400, 'invalid_body');
  });
});

describe("another project's keys", () => {
  it('are not listed, and cannot be rotated or revoked: 404 key_not_found, the key untouched', async () => {
    const theirs = await t.issueKey(globex.name);

    const listed = await t.call('/keys', { cookie: session.cookie });
    expect((listed.body.keys as { keyId: string }[]).map((key) => key.keyId)).not.toContain(theirs.keyId);
    expectError(await change('DELETE', `/keys/${theirs.keyId}`), 404, 'key_not_found');
    expectError(await change('POST', `/keys/${theirs.keyId}/rotate`), 404, 'key_not_found');
    // With the bearer token too (a tool of acme's).
    expectError(
      await t.call(`/keys/${theirs.keyId}`, { method: 'DELETE', bearer: acme.consoleToken }),
      404,
      'key_not_found',
    );

    expect((await t.keys.get(theirs.keyId))?.revokedAt).toBeUndefined();
    expect(await listPets(theirs.apiKey)).toBe(200);
    const ownList = await t.call('/keys', { bearer: globex.consoleToken });
    expect((ownList.body.keys as { keyId: string }[]).map((key) => key.keyId)).toEqual([theirs.keyId]);
  });
});

describe('the overview', () => {
  it("shows the plan, its limits, the address, and this minute's and today's API calls", async () => {
    // A fresh minute; the console's own calls are not the project's API calls.
    t.advance(60_000);
    const { apiKey } = await t.issueKey(acme.name);
    for (let index = 0; index < 3; index++) expect(await listPets(apiKey)).toBe(200);
    const before = (await t.call('/usage', { cookie: session.cookie })).body as {
      usage: { day: { used: number } };
    };

    const answer = await t.call('/usage', { cookie: session.cookie });
    expect(answer.status).toBe(200);
    const minuteEnd = (Math.floor(t.now() / 60_000) + 1) * 60_000;
    const dayEnd = (Math.floor(t.now() / 86_400_000) + 1) * 86_400_000;
    expect(answer.body).toEqual({
      project: { name: acme.name, plan: 'pro', address: `http://${acme.name}.localhost:${t.port}/v1` },
      limits: PLANS.pro.limits,
      customDomains: { allowed: true },
      usage: {
        minute: { used: 3, limit: PLANS.pro.limits.perMinute, resetsAt: new Date(minuteEnd).toISOString() },
        day: {
          used: before.usage.day.used,
          limit: PLANS.pro.limits.perDay,
          resetsAt: new Date(dayEnd).toISOString(),
        },
      },
    });
    // Earlier tests' API calls are today's too: at least these three, and the console's reads added none.
    expect(before.usage.day.used).toBeGreaterThanOrEqual(3);
  });

  it('tells a Free project that custom domains need Pro or above', async () => {
    const answer = await t.call('/usage', { bearer: globex.consoleToken });
    expect(answer.body).toMatchObject({
      project: { plan: 'free' },
      limits: PLANS.free.limits,
      customDomains: {
        allowed: false,
        reason: expect.stringMatching(/paid plan \(Pro or above\).*Free plan/),
      },
    });
  });
});

describe('at the same moment', () => {
  it('6 rotations of one key leave one replacement: one 201, five 409 key_revoked naming it, no other key', async () => {
    const owner = await t.createProject('pro');
    const own = await t.signIn(owner.consoleToken);
    const { keyId } = await t.issueKey(owner.name);

    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.call(`/keys/${keyId}/rotate`, {
          method: 'POST',
          cookie: own.cookie,
          origin: t.consoleOrigin,
          csrfToken: own.csrfToken,
        }),
      ),
    );

    const won = answers.filter((answer) => answer.status === 201);
    expect(won).toHaveLength(1);
    const replacement = (won[0]?.body.key as { keyId: string }).keyId;
    for (const lost of answers.filter((answer) => answer.status !== 201)) {
      expectError(lost, 409, 'key_revoked');
      expect(lost.body.message).toContain(`key ${replacement} replaced it`);
    }
    const stored = await t.keys.listByProject(owner.name);
    expect(stored.filter((key) => !key.revokedAt).map((key) => key.keyId)).toEqual([replacement]);
    expect(stored).toHaveLength(2);
    expect(await t.keys.get(keyId)).toMatchObject({ revokedAt: expect.any(String), replacedBy: replacement });
  });
});

describe('the cap of 100 active keys', () => {
  const create = (who: { cookie: string; csrfToken: string }, name: string) =>
    t.call('/keys', {
      method: 'POST',
      cookie: who.cookie,
      origin: t.consoleOrigin,
      csrfToken: who.csrfToken,
      body: { name },
    });
  const active = async (project: string) =>
    (await t.keys.listByProject(project)).filter((key) => !key.revokedAt).length;

  it('holds under 20 creates at once from 90 keys: 10 made, 10 refused 409 too_many_keys, 100 active', async () => {
    const owner = await t.createProject('pro');
    const own = await t.signIn(owner.consoleToken);
    // Keys stored before the cap existed: the project has no count yet, and is counted once.
    for (let index = 0; index < 90; index++) await t.issueKey(owner.name);

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => create(own, `batch ${index}`)),
    );

    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(10);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(10);
    for (const answer of refused) {
      expectError(answer, 409, 'too_many_keys');
      expect(answer.body.message).toMatch(/100 active keys.*revoke one first/);
    }
    expect(await active(owner.name)).toBe(100);
  });

  it('refuses the 101st; a revocation frees a place; a rotation at the cap keeps its place', async () => {
    const owner = await t.createProject('pro');
    const own = await t.signIn(owner.consoleToken);
    // 99 keys stored directly (counted once, on the next create), the 100th through the page.
    for (let index = 0; index < 99; index++) await t.issueKey(owner.name);
    expect((await create(own, 'key 99')).status).toBe(201);
    expectError(await create(own, 'one too many'), 409, 'too_many_keys');

    const [first, second] = await t.keys.listByProject(owner.name);
    const rotated = await t.call(`/keys/${first?.keyId}/rotate`, {
      method: 'POST',
      cookie: own.cookie,
      origin: t.consoleOrigin,
      csrfToken: own.csrfToken,
    });
    expect(rotated.status).toBe(201);
    expectError(await create(own, 'still too many'), 409, 'too_many_keys');

    const revoked = await t.call(`/keys/${second?.keyId}`, {
      method: 'DELETE',
      cookie: own.cookie,
      origin: t.consoleOrigin,
      csrfToken: own.csrfToken,
    });
    expect(revoked.status).toBe(200);
    // Revoking again gives no second place.
    await t.call(`/keys/${second?.keyId}`, {
      method: 'DELETE',
      cookie: own.cookie,
      origin: t.consoleOrigin,
      csrfToken: own.csrfToken,
    });
    expect((await create(own, 'in its place')).status).toBe(201);
    expectError(await create(own, 'past it again'), 409, 'too_many_keys');
    expect(await active(owner.name)).toBe(100);
  });
});
