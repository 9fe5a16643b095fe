import { createHash } from 'node:crypto';
import { memberId, ROLE_CACHE_MS } from '../../lambda/core/members';
import type { Role } from '../../lambda/core/permissions';
import { MAX_TOKEN_DAYS } from '../../lambda/core/personal-token-views';
import { PersonalTokenRepository } from '../../lambda/store/personal-token-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import {
  type CallAs,
  type Caller,
  type ConsolePeople,
  type ConsoleWithPeople,
  startConsoleWithPeople,
} from '../support/console-callers';
import { newPerson } from '../support/console-people';
import { type ConsoleAnswer, type ConsoleTestApi, expectError } from '../support/local-console';

/**
 * Personal access tokens over HTTP against local mode's console (issue 28): made from a person's
 * session and shown once, stored as a hash, used as a tool's bearer with the lower of their role
 * and their member's current one; refused after expiry, revocation and their member's removal;
 * never across projects; a keyless caller changes nothing.
 */

let opened: ConsoleWithPeople;
let t: ConsoleTestApi;
let people: ConsolePeople;
let as: CallAs;
let tokenTable: PersonalTokenRepository;
let documents: ReturnType<typeof createDocumentClient>;

beforeAll(async () => {
  opened = await startConsoleWithPeople();
  ({ t, people, as } = opened);
  documents = createDocumentClient(t.api.dynamodbEndpoint);
  tokenTable = new PersonalTokenRepository(documents, LOCAL_TABLE_NAMES.personalTokens);
});

afterAll(async () => {
  documents?.destroy();
  await opened?.close();
});

/** A tool's call with a bearer token: no cookie, no Origin, no CSRF token. */
function withToken(token: string, method: string, path: string, body?: unknown): Promise<ConsoleAnswer> {
  return t.call(path, { method, bearer: token, ...(body === undefined ? {} : { body }) });
}

/** A project with an owner and a member of `role`, each signed in. */
async function project(role: Role = 'developer') {
  const { name, consoleToken } = await t.createProject('business');
  const owner = newPerson('owner');
  const member = newPerson(role);
  await people.add(name, owner, 'owner');
  await people.add(name, member, role);
  return {
    name,
    consoleToken,
    owner: { person: owner, caller: await people.signIn(owner, name) },
    member: { person: member, caller: await people.signIn(member, name) },
  };
}

async function createToken(
  caller: Caller,
  request: { name?: string; role: Role; expiresInDays?: number },
): Promise<{ token: string; tokenId: string }> {
  const answer = await as(caller, 'POST', '/tokens', { name: 'ci', expiresInDays: 30, ...request });
  if (answer.status !== 201) throw new Error(`createToken: ${answer.status} ${JSON.stringify(answer.body)}`);
  const view = answer.body.personalToken as { tokenId: string };
  return { token: answer.body.token as string, tokenId: view.tokenId };
}

describe('making a token', () => {
  it('shows its text once, stores only its hash, and lists it without a secret', async () => {
    const p = await project('developer');
    const created = await as(p.member.caller, 'POST', '/tokens', {
      name: 'deploys',
      role: 'developer',
      expiresInDays: 90,
    });
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    expect(token).toMatch(/^pat_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    const view = created.body.personalToken as Record<string, unknown>;
    expect(view).toEqual({
      tokenId: token.slice(4, 36),
      name: 'deploys',
      role: 'developer',
      member: { email: p.member.person.email },
      createdAt: new Date(t.now()).toISOString(),
      expiresAt: new Date(t.now() + 90 * 86_400_000).toISOString(),
    });
    const stored = await tokenTable.get(view.tokenId as string);
    expect(stored?.tokenHash).toBe(createHash('sha256').update(token.slice(37)).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(token.slice(37));

    const listed = await as(p.member.caller, 'GET', '/tokens');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ tokens: [view] });
    expect(JSON.stringify(listed.body)).not.toContain(token.slice(37));
    // The owner's own list does not hold it; the project's does.
    expect((await as(p.owner.caller, 'GET', '/tokens')).body).toEqual({ tokens: [] });
    expect((await as(p.owner.caller, 'GET', '/tokens?scope=project')).body).toEqual({ tokens: [view] });
    expectError(await as(p.member.caller, 'GET', '/tokens?scope=project'), 403, 'action_not_permitted');
  });

  it('refuses a role above the member’s and an expiry beyond a year', async () => {
    const p = await project('developer');
    for (const role of ['admin', 'owner']) {
      expectError(
        await as(p.member.caller, 'POST', '/tokens', { name: 'x', role, expiresInDays: 30 }),
        403,
        'token_role_too_high',
      );
    }
    for (const expiresInDays of [0, MAX_TOKEN_DAYS + 1, 1.5]) {
      expectError(
        await as(p.member.caller, 'POST', '/tokens', { name: 'x', role: 'viewer', expiresInDays }),
        400,
        'invalid_body',
      );
    }
    expect((await as(p.member.caller, 'GET', '/tokens')).body).toEqual({ tokens: [] });
  });

  it('is a person’s only: a token, a console token and a session without CSRF make none', async () => {
    const p = await project('developer');
    const { token } = await createToken(p.member.caller, { role: 'viewer' });
    const body = { name: 'again', role: 'viewer', expiresInDays: 30 };
    expectError(await withToken(token, 'POST', '/tokens', body), 403, 'person_session_required');
    expectError(await withToken(token, 'GET', '/tokens'), 403, 'person_session_required');
    const fresh = await t.createProject('business');
    expectError(await withToken(fresh.consoleToken, 'POST', '/tokens', body), 403, 'person_session_required');
    expectError(
      await t.call('/tokens', { method: 'POST', cookie: p.member.caller.cookie, body }),
      403,
      'csrf_origin_refused',
    );
    expect((await as(p.member.caller, 'GET', '/tokens')).body.tokens).toHaveLength(1);
  });
});

describe('using a token', () => {
  it('acts for its project as a tool, with its role: a viewer’s token cannot create a key', async () => {
    const p = await project('viewer');
    const { token } = await createToken(p.member.caller, { role: 'viewer' });
    expect((await withToken(token, 'GET', '/keys')).status).toBe(200);
    expectError(await withToken(token, 'POST', '/keys', { name: 'sneaky' }), 403, 'action_not_permitted');
    expect((await withToken(token, 'GET', '/keys')).body).toEqual({ keys: [] });
  });

  it('acts with the lower role: a developer’s viewer token cannot, a developer token can', async () => {
    const p = await project('developer');
    const viewerToken = await createToken(p.member.caller, { role: 'viewer' });
    const developerToken = await createToken(p.member.caller, { role: 'developer' });
    expectError(
      await withToken(viewerToken.token, 'POST', '/keys', { name: 'no' }),
      403,
      'action_not_permitted',
    );
    expect((await withToken(developerToken.token, 'POST', '/keys', { name: 'ci' })).status).toBe(201);
  });

  it('never exceeds its member’s current role: a demotion lowers it at once', async () => {
    const p = await project('admin');
    const { token } = await createToken(p.member.caller, { role: 'admin' });
    expect((await withToken(token, 'POST', '/keys', { name: 'before' })).status).toBe(201);
    const demoted = await as(p.owner.caller, 'POST', `/members/${memberId(p.member.person)}/role`, {
      role: 'viewer',
    });
    expect(demoted.status).toBe(200);
    expectError(await withToken(token, 'POST', '/keys', { name: 'after' }), 403, 'action_not_permitted');
    expect(((await withToken(token, 'GET', '/keys')).body.keys as unknown[]).length).toBe(1);
  });

  it("adds a member with its member's issuer, and never leaves for its member without the right", async () => {
    const p = await project('viewer');
    const { token } = await createToken(p.member.caller, { role: 'viewer' });
    expectError(
      await withToken(token, 'DELETE', `/members/${memberId(p.member.person)}`),
      403,
      'action_not_permitted',
    );
    const ownerToken = await createToken(p.owner.caller, { role: 'admin' });
    const added = await withToken(ownerToken.token, 'POST', '/members', {
      subject: 'added-by-token',
      email: 'added@people.test',
      role: 'viewer',
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ issuer: p.owner.person.issuer, role: 'viewer' });
    expect(((await withToken(token, 'GET', '/members')).body.members as unknown[]).length).toBe(3);
  });

  it('records its last use', async () => {
    const p = await project('developer');
    const { token, tokenId } = await createToken(p.member.caller, { role: 'viewer' });
    t.advance(5_000);
    expect((await withToken(token, 'GET', '/usage')).status).toBe(200);
    const listed = (await as(p.member.caller, 'GET', '/tokens')).body.tokens as Record<string, unknown>[];
    expect(listed).toEqual([
      expect.objectContaining({ tokenId, lastUsedAt: new Date(t.now()).toISOString() }),
    ]);
  });

  it('is refused after its expiry', async () => {
    const p = await project('developer');
    const { token } = await createToken(p.member.caller, { role: 'developer', expiresInDays: 1 });
    t.advance(86_400_000 - 1_000);
    expect((await withToken(token, 'GET', '/keys')).status).toBe(200);
    t.advance(1_000);
    expectError(await withToken(token, 'GET', '/keys'), 401, 'personal_token_expired');
    expectError(await withToken(token, 'POST', '/keys', { name: 'late' }), 401, 'personal_token_expired');
  });
});

describe('ending a token', () => {
  it('is refused once revoked; two revokes at once both answer the first time', async () => {
    const p = await project('developer');
    const { token, tokenId } = await createToken(p.member.caller, { role: 'developer' });
    expect((await withToken(token, 'GET', '/keys')).status).toBe(200);
    const [first, second] = await Promise.all([
      as(p.member.caller, 'DELETE', `/tokens/${tokenId}`),
      as(p.member.caller, 'DELETE', `/tokens/${tokenId}`),
    ]);
    expect([first?.status, second?.status]).toEqual([200, 200]);
    const revokedAt = (first?.body.personalToken as { revokedAt: string }).revokedAt;
    expect(revokedAt).toBe(new Date(t.now()).toISOString());
    expect((second?.body.personalToken as { revokedAt: string }).revokedAt).toBe(revokedAt);
    expectError(await withToken(token, 'GET', '/keys'), 401, 'personal_token_revoked');
    expectError(await withToken(token, 'POST', '/keys', { name: 'late' }), 401, 'personal_token_revoked');
  });

  it('lets an owner revoke a member’s token, and nobody else another’s', async () => {
    const p = await project('admin');
    const mine = await createToken(p.member.caller, { role: 'developer' });
    const ownersToken = await createToken(p.owner.caller, { role: 'viewer' });
    // An admin (no manageTokens) cannot reach the owner's token: not found, as any other.
    expectError(
      await as(p.member.caller, 'DELETE', `/tokens/${ownersToken.tokenId}`),
      404,
      'token_not_found',
    );
    expect((await withToken(ownersToken.token, 'GET', '/keys')).status).toBe(200);
    expect((await as(p.owner.caller, 'DELETE', `/tokens/${mine.tokenId}`)).status).toBe(200);
    expectError(await withToken(mine.token, 'GET', '/keys'), 401, 'personal_token_revoked');
  });

  it('is revoked with its member’s removal in the console', async () => {
    const p = await project('developer');
    const { token, tokenId } = await createToken(p.member.caller, { role: 'developer' });
    expect((await withToken(token, 'GET', '/keys')).status).toBe(200);
    expect((await as(p.owner.caller, 'DELETE', `/members/${memberId(p.member.person)}`)).status).toBe(200);
    expectError(await withToken(token, 'GET', '/keys'), 401, 'personal_token_revoked');
    expect((await tokenTable.get(tokenId))?.revokedAt).toBeDefined();
  });

  it('is refused once its member is gone by any path (the members tool), within 30 s', async () => {
    const p = await project('developer');
    const { token } = await createToken(p.member.caller, { role: 'developer' });
    expect((await withToken(token, 'GET', '/keys')).status).toBe(200);
    await people.members.remove(p.name, p.member.person, 'platform');
    t.advance(ROLE_CACHE_MS);
    expectError(await withToken(token, 'GET', '/keys'), 401, 'membership_ended');
    // Added again (the members tool does not revoke tokens): the old token stays refused.
    t.advance(1_000);
    await people.add(p.name, p.member.person, 'developer');
    t.advance(ROLE_CACHE_MS);
    expectError(await withToken(token, 'GET', '/keys'), 401, 'membership_ended');
  });
});

describe('attackers', () => {
  it('cannot use project A’s token on project B’s things', async () => {
    const a = await project('owner');
    const b = await project('owner');
    const { token } = await createToken(a.member.caller, { role: 'owner' });
    const bKey = await t.issueKey(b.name);
    const bToken = await createToken(b.member.caller, { role: 'viewer' });
    expectError(await withToken(token, 'DELETE', `/keys/${bKey.keyId}`), 404, 'key_not_found');
    // A's owner, by session, reaches no token of B either.
    expectError(await as(a.owner.caller, 'DELETE', `/tokens/${bToken.tokenId}`), 404, 'token_not_found');
    expect((await withToken(bToken.token, 'GET', '/keys')).status).toBe(200);
    const bKeys = await withToken(bToken.token, 'GET', '/keys');
    expect((bKeys.body.keys as { revokedAt?: string }[])[0]?.revokedAt).toBeUndefined();
    const usage = await withToken(token, 'GET', '/usage');
    expect((usage.body.project as { name: string }).name).toBe(a.name);
  });

  it('learns nothing from unknown, malformed and wrong tokens, and changes nothing without one', async () => {
    const p = await project('developer');
    const { token, tokenId } = await createToken(p.member.caller, { role: 'developer' });
    const wrongSecret = `${token.slice(0, 37)}${'A'.repeat(43)}`;
    const unknown = `pat_${'0'.repeat(32)}_${token.slice(37)}`;
    const answers = await Promise.all(
      [wrongSecret, unknown, 'pat_', 'pat_x', `${token}x`, `pat_${tokenId}`].map((bearer) =>
        withToken(bearer, 'GET', '/keys'),
      ),
    );
    for (const answer of answers) expectError(answer, 401, 'invalid_personal_token');
    expect(new Set(answers.map((answer) => answer.body.message)).size).toBe(1);

    const before = await as(p.member.caller, 'GET', '/tokens');
    const body = { name: 'x', role: 'developer', expiresInDays: 30 };
    expectError(await t.call('/tokens', { method: 'POST', body }), 401, 'not_signed_in');
    expectError(await t.call('/tokens'), 401, 'not_signed_in');
    expectError(await t.call(`/tokens/${tokenId}`, { method: 'DELETE' }), 401, 'not_signed_in');
    expectError(await withToken(wrongSecret, 'DELETE', `/tokens/${tokenId}`), 401, 'invalid_personal_token');
    expect((await as(p.member.caller, 'GET', '/tokens')).body).toEqual(before.body);
    expect((await withToken(token, 'GET', '/keys')).status).toBe(200);
  });
});
