import { CONSOLE_ROUTES, type ConsoleRoute } from '../../lambda/api/console-routes';
import { type AuditActor, type AuditEntry, MAX_TARGET } from '../../lambda/core/audit';
import { CLAIM_WINDOW_MS } from '../../lambda/core/custom-domains/domain-claims';
import type { Person } from '../../lambda/core/identity';
import { memberId } from '../../lambda/core/members';
import { ROLES, type Role } from '../../lambda/core/permissions';
import type { Schema } from '../../lambda/api/schema';
import { consolePeople, newPerson } from '../support/console-people';
import {
  type ConsoleAnswer,
  type ConsoleTestApi,
  expectError,
  startConsoleTestApi,
} from '../support/local-console';

/**
 * The audit log over HTTP against local mode's console (issue 28): every audited route leaves
 * exactly one entry with its actor and outcome (driven by the route table's `audit` fields, so
 * a new route is covered with no edit here), sign-ins of console tokens, the reading API's
 * roles, filters and pages, one project's entries out of another's reach, keyless callers who
 * write nothing, and what the domains' own rules do (a contest, a release) as the platform's.
 */

let t: ConsoleTestApi;
let people: ReturnType<typeof consolePeople>;

beforeAll(async () => {
  // The domains' rules on the test's clock too: a claim's window passes when the test says.
  t = await startConsoleTestApi({ domainsOnTestClock: true });
  people = consolePeople(t);
});

afterAll(async () => {
  people.close();
  await t.close();
});

interface Caller {
  readonly cookie: string;
  readonly csrfToken: string;
}

const USER_AGENT = 'audit-test/1.0';

/** A call with a person's session, from the console's page (Origin and CSRF token). */
function as(caller: Caller, method: string, path: string, body?: unknown): Promise<ConsoleAnswer> {
  return t.call(path, {
    method,
    cookie: caller.cookie,
    headers: { 'User-Agent': USER_AGENT },
    ...(method === 'GET' ? {} : { origin: t.consoleOrigin, csrfToken: caller.csrfToken }),
    ...(body === undefined ? {} : { body }),
  });
}

/** A project with a member of each role, and a session of each. */
async function teamProject() {
  const project = await t.createProject('business');
  const team = {} as Record<Role, { person: Person; caller: Caller }>;
  for (const role of ROLES) {
    const person = newPerson(role);
    await people.add(project.name, person, role);
    team[role] = { person, caller: await people.signIn(person, project.name) };
  }
  return { ...project, team };
}

const personActor = (person: Person): AuditActor => ({
  kind: 'person',
  person: { issuer: person.issuer, subject: person.subject, email: person.email },
});

/** Every entry of a project, newest first, read through the API by its owner, page after page. */
async function entriesOf(owner: Caller, query = ''): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const separator = query || cursor ? '?' : '';
    const parameters = [query, cursor ? `cursor=${cursor}` : ''].filter(Boolean).join('&');
    const page = await as(owner, 'GET', `/audit${separator}${parameters}`);
    expect(page.status).toBe(200);
    entries.push(...(page.body.entries as AuditEntry[]));
    cursor = page.body.cursor as string | undefined;
  } while (cursor);
  return entries;
}

let made = 0;
const unique = () => `audit-${(made += 1)}-${Date.now().toString(36)}`;

/** A valid body of a route's schema: enums take their last (least trusted) value; names are domain-shaped. */
function exampleBody(schema: Schema | undefined): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  const body: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const field of schema.required ?? []) {
    const property = properties[field] ?? {};
    const choices = property.enum as readonly unknown[] | undefined;
    if (choices) body[field] = choices[choices.length - 1];
    else if (property.type === 'integer') body[field] = property.minimum ?? 1;
    else if (field === 'email') body[field] = `${unique()}@people.test`;
    // A domain name is also a fine name of a key, a token or a person's subject.
    else body[field] = `${unique()}.audit-pets.test`;
  }
  return body;
}

describe('every audited route', () => {
  // A project's creation is its new project's first entry (below), not the caller's project's.
  const audited = CONSOLE_ROUTES.filter(
    (route): route is ConsoleRoute & { audit: NonNullable<ConsoleRoute['audit']> } =>
      route.audit !== undefined && route.audit !== 'project.create',
  );
  let project: Awaited<ReturnType<typeof teamProject>>;

  beforeAll(async () => {
    project = await teamProject();
  });

  /** A path of the route, each `{parameter}` something of the project made for it. */
  async function pathOf(route: ConsoleRoute): Promise<string> {
    let path = route.path;
    for (const [, parameter] of route.path.matchAll(/\{(\w+)\}/g)) {
      let value: string;
      if (parameter === 'name') {
        value = `${unique()}.audit-pets.test`;
        const added = await as(project.team.owner.caller, 'POST', '/domains', { name: value });
        expect(added.status).toBe(201);
      } else if (parameter === 'keyId') {
        value = (await t.issueKey(project.name)).keyId;
      } else if (parameter === 'tokenId') {
        const created = await as(project.team.owner.caller, 'POST', '/tokens', {
          name: unique(),
          role: 'viewer',
          expiresInDays: 1,
        });
        expect(created.status).toBe(201);
        value = (created.body.personalToken as { tokenId: string }).tokenId;
      } else if (parameter === 'invitationId') {
        const invited = await as(project.team.owner.caller, 'POST', '/invitations', {
          email: `${unique()}@people.test`,
          role: 'viewer',
        });
        expect(invited.status).toBe(201);
        value = (invited.body.invitation as { invitationId: string }).invitationId;
      } else if (parameter === 'memberId') {
        const person = newPerson('target');
        await people.add(project.name, person, 'viewer');
        value = memberId(person);
      } else {
        throw new Error(`No fixture for {${parameter}} of ${route.operationId}: teach pathOf to make one.`);
      }
      path = path.replace(`{${parameter}}`, encodeURIComponent(value));
    }
    return path;
  }

  it('names at least the mutating routes of keys, domains, members and sign-out', () => {
    expect(Object.fromEntries(audited.map((route) => [route.operationId, route.audit]))).toEqual(
      expect.objectContaining({
        deleteSession: 'sign-out',
        createKey: 'key.create',
        rotateKey: 'key.rotate',
        revokeKey: 'key.revoke',
        addDomain: 'domain.add',
        verifyDomain: 'domain.verify',
        setPrimaryDomain: 'domain.primary',
        makeRedirectDomain: 'domain.redirect',
        removeDomain: 'domain.remove',
        addMember: 'member.add',
        setMemberRole: 'member.role',
        removeMember: 'member.remove',
        createToken: 'token.create',
        revokeToken: 'token.revoke',
      }),
    );
  });

  it.each(audited.map((route) => [route.operationId, route.audit, route] as const))(
    '%s leaves exactly one %s entry, with its actor, outcome, address and user agent',
    async (_, action, route) => {
      const owner = project.team.owner;
      const path = await pathOf(route);
      // Its own session: sign-out ends it.
      const caller = await people.signIn(owner.person, project.name);
      const before = await entriesOf(owner.caller);
      const answer = await as(caller, route.method, path, exampleBody(route.requestBody));
      const after = await entriesOf(owner.caller);
      const added = after.slice(0, after.length - before.length);
      expect(after.slice(added.length)).toEqual(before);
      expect(added).toEqual([
        expect.objectContaining({
          project: project.name,
          action,
          actor: personActor(owner.person),
          outcome:
            answer.status < 400
              ? { result: 'success' }
              : { result: 'refused', code: answer.body.code, status: answer.status },
          clientAddress: '127.0.0.1',
          userAgent: USER_AGENT,
          at: new Date(t.now()).toISOString(),
        }),
      ]);
      if (route.path.includes('{')) expect(path).toContain(encodeURIComponent(added[0]?.target ?? '-'));
    },
  );

  it("records a project's creation as its new project's first entry, with its creator", async () => {
    const owner = project.team.owner;
    const caller = await people.signIn(owner.person, project.name);
    const name = `audit-${unique()}`
      .slice(0, 40)
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-');
    const before = await entriesOf(owner.caller);
    const created = await as(caller, 'POST', '/projects', { name });
    expect(created.status).toBe(201);
    // Nothing in the project the creator was in.
    expect(await entriesOf(owner.caller)).toEqual(before);
    const inNew = await people.signIn(owner.person, name);
    expect(await entriesOf(inNew)).toEqual([
      expect.objectContaining({
        project: name,
        action: 'project.create',
        actor: personActor(owner.person),
        outcome: { result: 'success' },
      }),
    ]);
  });

  it("records a refusal of the permission table as the refused caller's, with its code", async () => {
    const viewer = project.team.viewer;
    const refused = await as(viewer.caller, 'POST', '/keys', { name: 'nope' });
    expectError(refused, 403, 'action_not_permitted');
    const [latest] = await entriesOf(project.team.owner.caller, 'action=key.create&limit=1');
    expect(latest).toEqual(
      expect.objectContaining({
        actor: personActor(viewer.person),
        outcome: { result: 'refused', code: 'action_not_permitted', status: 403 },
      }),
    );
  });
});

describe("a caller's own text", () => {
  it(`is kept at most ${MAX_TARGET} characters as a target, control characters and all, however long the path`, async () => {
    const project = await teamProject();
    const viewer = project.team.viewer;
    const forged = `\n2026-01-01T00:00:00.000Z  member.remove\u001b[2J${'x'.repeat(1000)}`;
    const refused = await as(viewer.caller, 'DELETE', `/tokens/${encodeURIComponent(forged)}`);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const [latest] = await entriesOf(project.team.owner.caller, 'action=token.revoke&limit=1');
    expect(latest?.actor).toEqual(personActor(viewer.person));
    expect(latest?.target).toBe(forged.slice(0, MAX_TARGET));
  });
});

describe("a personal token's calls", () => {
  it("are the token's with its member; its revocation is the revoker's, and a revoked token writes nothing", async () => {
    const project = await teamProject();
    const { developer, owner } = project.team;
    const created = await as(developer.caller, 'POST', '/tokens', {
      name: 'deploy',
      role: 'developer',
      expiresInDays: 30,
    });
    expect(created.status).toBe(201);
    const text = created.body.token as string;
    const { tokenId } = created.body.personalToken as { tokenId: string };
    expect((await t.call('/keys', { method: 'POST', bearer: text, body: { name: 'from-ci' } })).status).toBe(
      201,
    );
    expect((await as(owner.caller, 'DELETE', `/tokens/${tokenId}`)).status).toBe(200);
    const before = await entriesOf(owner.caller);
    expect([401, 403]).toContain(
      (await t.call('/keys', { method: 'POST', bearer: text, body: { name: 'x' } })).status,
    );
    expect(await entriesOf(owner.caller)).toEqual(before);
    expect(before.slice(0, 3).map(({ action, actor, target }) => ({ action, actor, target }))).toEqual([
      { action: 'token.revoke', actor: personActor(owner.person), target: tokenId },
      {
        action: 'key.create',
        actor: {
          kind: 'personal-token',
          token: { id: tokenId, name: 'deploy' },
          person: (personActor(developer.person) as { person: unknown }).person,
        },
        target: expect.any(String),
      },
      { action: 'token.create', actor: personActor(developer.person), target: tokenId },
    ]);
    // The developer's own email finds their token's calls too.
    const mine = await entriesOf(owner.caller, `actor=${encodeURIComponent(developer.person.email)}`);
    expect(mine.map((entry) => entry.action)).toEqual(['key.create', 'token.create']);
  });
});

describe("a developer's token and the domains", () => {
  it("adds a domain, and is refused its removal (403 action_not_permitted), each recorded as the token's", async () => {
    const project = await teamProject();
    const { developer, owner } = project.team;
    const created = await as(developer.caller, 'POST', '/tokens', {
      name: 'domains',
      role: 'developer',
      expiresInDays: 30,
    });
    expect(created.status).toBe(201);
    const text = created.body.token as string;
    const { tokenId } = created.body.personalToken as { tokenId: string };
    const name = `${unique()}.audit-pets.test`;
    const added = await t.call('/domains', { method: 'POST', bearer: text, body: { name } });
    expect(added.status).toBe(201);
    expectError(
      await t.call(`/domains/${name}`, { method: 'DELETE', bearer: text }),
      403,
      'action_not_permitted',
    );
    const listed = await as(owner.caller, 'GET', '/domains');
    expect(listed.body.domains).toEqual([expect.objectContaining({ name })]);
    expect(await entriesOf(owner.caller, `actor=token:${tokenId}`)).toEqual([
      expect.objectContaining({
        action: 'domain.remove',
        target: name,
        outcome: { result: 'refused', code: 'action_not_permitted', status: 403 },
      }),
      expect.objectContaining({ action: 'domain.add', target: name, outcome: { result: 'success' } }),
    ]);
  });
});

describe('who may read the log', () => {
  it('answers owners and admins, and refuses developers and viewers 403', async () => {
    const project = await teamProject();
    for (const path of ['/audit', '/audit/export']) {
      for (const role of ['owner', 'admin'] as const) {
        expect((await as(project.team[role].caller, 'GET', path)).status).toBe(200);
      }
      for (const role of ['developer', 'viewer'] as const) {
        expectError(await as(project.team[role].caller, 'GET', path), 403, 'action_not_permitted');
      }
    }
  });

  it("shows one project's entries to its members only", async () => {
    const first = await teamProject();
    const second = await teamProject();
    expect((await as(first.team.owner.caller, 'POST', '/keys', { name: 'first' })).status).toBe(201);
    expect((await as(second.team.owner.caller, 'POST', '/keys', { name: 'second' })).status).toBe(201);
    for (const [mine, theirs] of [
      [first, second],
      [second, first],
    ] as const) {
      const seen = await entriesOf(mine.team.owner.caller);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((entry) => entry.project === mine.name)).toBe(true);
      // No filter reaches the other project's partition: its owner's email finds nothing here.
      expect(
        await entriesOf(
          mine.team.owner.caller,
          `actor=${encodeURIComponent(theirs.team.owner.person.email)}`,
        ),
      ).toEqual([]);
    }
  });
});

describe('callers who prove no project', () => {
  it('write nothing: no credentials, a wrong token, an ended session, a wrong sign-in token', async () => {
    const project = await teamProject();
    const owner = project.team.owner.caller;
    const ended = await people.signIn(project.team.owner.person, project.name);
    expect((await as(ended, 'DELETE', '/session')).status).toBe(204);
    const before = await entriesOf(owner);
    expectError(await as(ended, 'POST', '/keys', { name: 'x' }), 401, 'session_ended');
    expectError(await t.call('/keys', { method: 'POST', body: { name: 'x' } }), 401, 'not_signed_in');
    expectError(
      await t.call('/keys', {
        method: 'POST',
        body: { name: 'x' },
        bearer: `pct_${project.name}_${'A'.repeat(43)}`,
      }),
      401,
      'invalid_console_token',
    );
    const wrongSignIn = await t.call('/session', {
      method: 'POST',
      origin: t.consoleOrigin,
      body: { token: `pct_${project.name}_${'B'.repeat(43)}` },
    });
    expectError(wrongSignIn, 401, 'invalid_console_token');
    expect(await entriesOf(owner)).toEqual(before);
  });
});

describe("a console token's calls and sign-ins", () => {
  it("are the console token's, until the first owner retires it (a failed sign-in)", async () => {
    const { name, consoleToken } = await t.createProject('business');
    expect(
      (await t.call('/keys', { method: 'POST', body: { name: 'ci' }, bearer: consoleToken })).status,
    ).toBe(201);
    const session = await t.signIn(consoleToken);
    const owner = newPerson('owner');
    await people.add(name, owner, 'owner');
    const refused = await t.call('/session', {
      method: 'POST',
      origin: t.consoleOrigin,
      body: { token: consoleToken },
    });
    expectError(refused, 401, 'console_token_retired');
    const entries = await entriesOf(await people.signIn(owner, name));
    expect(entries.map(({ action, actor, outcome }) => ({ action, actor, outcome }))).toEqual([
      {
        action: 'sign-in.failed',
        actor: { kind: 'console-token' },
        outcome: { result: 'refused', code: 'console_token_retired', status: 401 },
      },
      { action: 'sign-in', actor: { kind: 'console-token' }, outcome: { result: 'success' } },
      { action: 'key.create', actor: { kind: 'console-token' }, outcome: { result: 'success' } },
    ]);
    expect(session.cookie).toBeTruthy();
  });
});

describe('reading the log', () => {
  it('filters by action, actor and time, pages newest first, and exports JSON Lines', async () => {
    const project = await teamProject();
    const { owner, admin } = project.team;
    for (const name of ['one', 'two', 'three']) {
      expect((await as(owner.caller, 'POST', '/keys', { name })).status).toBe(201);
      t.advance(1000);
    }
    const startedAt = new Date(t.now()).toISOString();
    expect((await as(admin.caller, 'POST', '/domains', { name: `${unique()}.audit-pets.test` })).status).toBe(
      201,
    );

    const all = await entriesOf(owner.caller);
    expect(all.map((entry) => entry.action)).toEqual([
      'domain.add',
      'key.create',
      'key.create',
      'key.create',
    ]);
    expect(all.map((entry) => entry.at)).toEqual([...all.map((entry) => entry.at)].sort().reverse());

    const firstPage = await as(owner.caller, 'GET', '/audit?action=key.create&limit=2');
    expect((firstPage.body.entries as AuditEntry[]).length).toBe(2);
    const secondPage = await as(
      owner.caller,
      'GET',
      `/audit?action=key.create&limit=2&cursor=${String(firstPage.body.cursor)}`,
    );
    expect(secondPage.body).toEqual({ entries: [all[3]] });

    expect(await entriesOf(owner.caller, `actor=${encodeURIComponent(admin.person.email)}`)).toEqual([
      all[0],
    ]);
    expect(
      await entriesOf(owner.caller, `actor=${encodeURIComponent(`person:${owner.person.email}`)}`),
    ).toEqual(all.slice(1));
    expect(await entriesOf(owner.caller, `since=${startedAt}`)).toEqual([all[0]]);
    expect(await entriesOf(owner.caller, `until=${all[2]?.at ?? ''}`)).toEqual(all.slice(2));

    expectError(await as(owner.caller, 'GET', '/audit?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid_cursor');
    expectError(await as(owner.caller, 'GET', '/audit?action=key.eat'), 400, 'invalid_parameter');
    expectError(await as(owner.caller, 'GET', '/audit?since=yesterday'), 400, 'invalid_parameter');
    expectError(await as(owner.caller, 'GET', '/audit?limit=101'), 400, 'invalid_parameter');
    // An actor filter of nothing, or longer than any actor's name, is the caller's mistake.
    expectError(await as(owner.caller, 'GET', '/audit?actor='), 400, 'invalid_parameter');
    expectError(await as(owner.caller, 'GET', `/audit?actor=${'a'.repeat(401)}`), 400, 'invalid_parameter');

    const exported = await as(owner.caller, 'GET', '/audit/export');
    expect(exported.headers.get('content-type')).toMatch(/^application\/jsonl/);
    expect(exported.body.lines).toEqual(all);
    const partial = await as(owner.caller, 'GET', '/audit/export?limit=3');
    expect(partial.body.lines).toEqual(all.slice(0, 3));
    const link = /^<\/console\/api(\/audit\/export\?[^>]+)>; rel="next"$/.exec(
      partial.headers.get('link') ?? '',
    );
    expect(link).not.toBeNull();
    expect((await as(owner.caller, 'GET', link?.[1] ?? '')).body.lines).toEqual(all.slice(3));
  });
});

// Last in the file: it moves the clock past a claim's window, which ends every session before it.
describe("the domains' own rules, recorded as the platform's", () => {
  /** Points the name's CNAME at `target` in local mode's sandbox DNS, replacing any. */
  function pointName(name: string, target: string): void {
    const dns = t.api.domains?.dns;
    if (!dns) throw new Error('local mode started without custom domains');
    dns.removeRecord({ name, type: 'CNAME' });
    dns.setRecord({ name, type: 'CNAME', value: target });
  }

  /** Adds the name in the project, points its CNAME at the project's target and verifies it. */
  async function addAndVerify(caller: Caller, name: string): Promise<void> {
    const added = await as(caller, 'POST', '/domains', { name });
    expect(added.status).toBe(201);
    pointName(name, (added.body.record as { value: string }).value);
    const verified = await as(caller, 'POST', `/domains/${name}/verify`);
    expect(verified.body).toMatchObject({ verified: true });
  }

  /** The entries a step adds to a project's log (newest first), the log otherwise unchanged. */
  async function entriesAddedBy(reader: Caller, step: () => Promise<unknown>): Promise<AuditEntry[]> {
    const before = await entriesOf(reader);
    await step();
    const after = await entriesOf(reader);
    const added = after.slice(0, after.length - before.length);
    expect(after.slice(added.length)).toEqual(before);
    return added;
  }

  it('records a contest once, in the log of the project that lost the name, naming neither the winner nor its person', async () => {
    const loser = await teamProject();
    const winner = await teamProject();
    const name = `${unique()}.audit-pets.test`;
    await addAndVerify(loser.team.developer.caller, name);
    const contested = await entriesAddedBy(loser.team.owner.caller, () =>
      addAndVerify(winner.team.developer.caller, name),
    );
    expect(contested).toEqual([
      {
        project: loser.name,
        entryId: expect.any(String),
        at: new Date(t.now()).toISOString(),
        actor: { kind: 'platform', rule: 'dns-proof' },
        action: 'domain.contest',
        target: name,
        outcome: { result: 'success' },
      },
    ]);
    const { person } = winner.team.developer;
    const loserLog = JSON.stringify(await entriesOf(loser.team.owner.caller));
    for (const secret of [winner.name, person.email, person.subject]) expect(loserLog).not.toContain(secret);
    // The winner's log has its own add and verify, and no contest.
    const winnerLog = await entriesOf(winner.team.owner.caller, `actor=${encodeURIComponent(person.email)}`);
    expect(winnerLog.map(({ action, target }) => ({ action, target }))).toEqual([
      { action: 'domain.verify', target: name },
      { action: 'domain.add', target: name },
    ]);
    expect(await entriesOf(winner.team.owner.caller, 'action=domain.contest')).toEqual([]);
  });

  it("records a release once, in its project's log, however many lists find the claim's window passed", async () => {
    const project = await teamProject();
    const name = `${unique()}.audit-pets.test`;
    expect((await as(project.team.developer.caller, 'POST', '/domains', { name })).status).toBe(201);
    t.advance(CLAIM_WINDOW_MS);
    const owner = await people.signIn(project.team.owner.person, project.name);
    const released = await entriesAddedBy(owner, async () => {
      // Two lists at once: both find the claim releasable, one releases it.
      const lists = await Promise.all([as(owner, 'GET', '/domains'), as(owner, 'GET', '/domains')]);
      expect(lists.map((list) => list.body.domains)).toEqual([[], []]);
      expect((await as(owner, 'GET', '/domains')).body.domains).toEqual([]);
    });
    expect(released).toEqual([
      {
        project: project.name,
        entryId: expect.any(String),
        at: new Date(t.now()).toISOString(),
        actor: { kind: 'platform', rule: 'claim-window' },
        action: 'domain.release',
        target: name,
        outcome: { result: 'success' },
      },
    ]);
    expect(await entriesOf(owner, 'actor=rule:claim-window')).toEqual(released);
  });
});
