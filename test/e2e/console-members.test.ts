import { REMOVE_CONFIRMATION } from '../../lambda/core/custom-domains/custom-domain-record';
import { CONSOLE_ROUTES, type ConsoleOperationId } from '../../lambda/api/console-routes';
import type { Person } from '../../lambda/core/identity';
import { memberId, ROLE_CACHE_MS } from '../../lambda/core/members';
import { ACTIONS, may, permissionsOf, ROLES } from '../../lambda/core/permissions';
import {
  type CallAs,
  type Caller,
  type ConsolePeople,
  type ConsoleWithPeople,
  startConsoleWithPeople,
} from '../support/console-callers';
import { newPerson, TEST_ISSUER } from '../support/console-people';
import { type ConsoleAnswer, type ConsoleTestApi, expectError } from '../support/local-console';

/**
 * Members and roles over HTTP against local mode's console (issue 26): every role against
 * every action of the permission table, members of one project against another's resources,
 * the last owner's protection (two concurrent calls included), the end of a removed member's
 * sessions within 30 s, and the migration from console tokens.
 */

let opened: ConsoleWithPeople;
let t: ConsoleTestApi;
let people: ConsolePeople;
let as: CallAs;
let teamProject: ConsoleWithPeople['teamProject'];

beforeAll(async () => {
  opened = await startConsoleWithPeople();
  ({ t, people, as, teamProject } = opened);
});

afterAll(() => opened?.close());

let domainCount = 0;
const newDomain = () => `shop-${(domainCount += 1)}.members-pets.test`;

/** One request of each route that names an action: what it sends, and what it answers when allowed. */
type Exercise = (
  project: string,
  caller: Caller,
) => Promise<{ readonly answer: ConsoleAnswer; readonly allowed: number }>;

const EXERCISES: Record<
  Exclude<
    ConsoleOperationId,
    | 'createSession'
    | 'getSession'
    | 'deleteSession'
    | 'switchProject'
    | 'removeMember'
    | 'openInvitation'
    | 'createProject'
    // A member's own tokens name no action (issue 28: test/e2e/console-tokens.test.ts).
    | 'listTokens'
    | 'createToken'
    | 'revokeToken'
  >,
  Exercise
> = {
  getUsage: async (_, c) => ({ answer: await as(c, 'GET', '/usage'), allowed: 200 }),
  getUsageHistory: async (_, c) => ({ answer: await as(c, 'GET', '/usage/history'), allowed: 200 }),
  listKeys: async (_, c) => ({ answer: await as(c, 'GET', '/keys'), allowed: 200 }),
  createKey: async (_, c) => ({ answer: await as(c, 'POST', '/keys', { name: 'ci' }), allowed: 201 }),
  rotateKey: async (p, c) => {
    const { keyId } = await t.issueKey(p);
    return { answer: await as(c, 'POST', `/keys/${keyId}/rotate`), allowed: 201 };
  },
  revokeKey: async (p, c) => {
    const { keyId } = await t.issueKey(p);
    return { answer: await as(c, 'DELETE', `/keys/${keyId}`), allowed: 200 };
  },
  listDomains: async (_, c) => ({ answer: await as(c, 'GET', '/domains'), allowed: 200 }),
  addDomain: async (_, c) => ({
    answer: await as(c, 'POST', '/domains', { name: newDomain() }),
    allowed: 201,
  }),
  verifyDomain: async (p, c) => {
    const name = await addedDomain(p);
    return { answer: await as(c, 'POST', `/domains/${name}/verify`), allowed: 200 };
  },
  // A pending domain cannot be the primary: the rules answer 409, past the permission.
  setPrimaryDomain: async (p, c) => {
    const name = await addedDomain(p);
    return { answer: await as(c, 'POST', `/domains/${name}/primary`), allowed: 409 };
  },
  makeRedirectDomain: async (p, c) => {
    const name = await addedDomain(p);
    return { answer: await as(c, 'POST', `/domains/${name}/redirect`), allowed: 200 };
  },
  removeDomain: async (p, c) => {
    const name = await addedDomain(p);
    return { answer: await as(c, 'DELETE', `/domains/${name}`), allowed: 200 };
  },
  listMembers: async (_, c) => ({ answer: await as(c, 'GET', '/members'), allowed: 200 }),
  listAuditLog: async (_, c) => ({ answer: await as(c, 'GET', '/audit'), allowed: 200 }),
  exportAuditLog: async (_, c) => ({ answer: await as(c, 'GET', '/audit/export'), allowed: 200 }),
  addMember: async (_, c) => {
    const { subject, email } = newPerson('added');
    return { answer: await as(c, 'POST', '/members', { subject, email, role: 'viewer' }), allowed: 201 };
  },
  setMemberRole: async (p, c) => {
    const target = newPerson('target');
    await people.add(p, target, 'viewer');
    return {
      answer: await as(c, 'POST', `/members/${memberId(target)}/role`, { role: 'developer' }),
      allowed: 200,
    };
  },
  // Invitations (issue 27).
  listInvitations: async (_, c) => ({ answer: await as(c, 'GET', '/invitations'), allowed: 200 }),
  createInvitation: async (_, c) => ({
    answer: await as(c, 'POST', '/invitations', { email: newPerson('invited').email, role: 'viewer' }),
    allowed: 201,
  }),
  revokeInvitation: async (p, c) => {
    const sent = await as(owned.team.owner.caller, 'POST', '/invitations', {
      email: newPerson('revoked').email,
      role: 'viewer',
    });
    const { invitationId } = sent.body.invitation as { invitationId: string };
    if (sent.status !== 201 || owned.name !== p) throw new Error(`invite: ${sent.status}`);
    return { answer: await as(c, 'DELETE', `/invitations/${invitationId}`), allowed: 200 };
  },
};

let owned: Awaited<ReturnType<typeof teamProject>>;

/** A domain of the project, added by its owner. */
async function addedDomain(project: string): Promise<string> {
  const name = newDomain();
  const added = await as(owned.team.owner.caller, 'POST', '/domains', { name });
  if (added.status !== 201 || owned.name !== project) throw new Error(`add ${name}: ${added.status}`);
  return name;
}

describe('every role against every action of the permission table', () => {
  beforeAll(async () => {
    owned = await teamProject();
  });

  it('covers every route that names an action', () => {
    const named = CONSOLE_ROUTES.filter((route) => route.action !== undefined).map((r) => r.operationId);
    expect(Object.keys(EXERCISES).sort()).toEqual(named.sort());
  });

  for (const role of ROLES) {
    for (const [operationId, exercise] of Object.entries(EXERCISES)) {
      const route = CONSOLE_ROUTES.find((each) => each.operationId === operationId);
      const action = route?.action;
      if (!action) continue;
      const verdict = may(role, action) ? 'may' : 'may not';
      it(`a ${role} ${verdict} ${operationId} (${action})`, async () => {
        const { answer, allowed } = await exercise(owned.name, owned.team[role].caller);
        if (may(role, action)) expect(answer.status).toBe(allowed);
        else expectError(answer, 403, 'action_not_permitted');
      });
    }
  }

  // Removing another member is the table's manageMembers (the route names no action: anyone may leave).
  for (const role of ROLES) {
    const verdict = may(role, 'manageMembers') ? 'may' : 'may not';
    it(`a ${role} ${verdict} removeMember another member (manageMembers), and may leave`, async () => {
      const target = newPerson('removed');
      await people.add(owned.name, target, 'viewer');
      const answer = await as(owned.team[role].caller, 'DELETE', `/members/${memberId(target)}`);
      if (may(role, 'manageMembers')) expect(answer.status).toBe(200);
      else expectError(answer, 403, 'action_not_permitted');
      expect((await people.store.get(owned.name, target)) === undefined).toBe(may(role, 'manageMembers'));
      // Leaving takes no right: a member of each role leaves a project of two owners (the leaver
      // and another; only the leaver signs in).
      const project = await t.createProject('business');
      await people.add(project.name, newPerson('second-owner'), 'owner');
      if (role !== 'owner') await people.add(project.name, newPerson('third-owner'), 'owner');
      const leaver = newPerson(role);
      await people.add(project.name, leaver, role);
      const left = await as(
        await people.signIn(leaver, project.name),
        'DELETE',
        `/members/${memberId(leaver)}`,
      );
      expect(left.status).toBe(200);
      expect(await people.store.get(project.name, leaver)).toBeUndefined();
    });
  }

  it('refuses to add a member twice, or a person who is not one (a bad email), in the Error shape', async () => {
    const { owner } = owned.team;
    const { subject, email } = newPerson('twice');
    const first = await as(owner.caller, 'POST', '/members', { subject, email, role: 'viewer' });
    expect(first.status).toBe(201);
    expectError(
      await as(owner.caller, 'POST', '/members', { subject, email, role: 'admin' }),
      409,
      'member_exists',
    );
    expect((await people.store.get(owned.name, { issuer: TEST_ISSUER, subject }))?.role).toBe('viewer');
    expectError(
      await as(owner.caller, 'POST', '/members', {
        subject: 'no-email',
        email: 'not an email',
        role: 'viewer',
      }),
      400,
      'invalid_body',
    );
    expect(await people.store.get(owned.name, { issuer: TEST_ISSUER, subject: 'no-email' })).toBeUndefined();
  });

  it('refuses without a trace: a viewer creates no key', async () => {
    const before = await as(owned.team.owner.caller, 'GET', '/keys');
    expectError(
      await as(owned.team.viewer.caller, 'POST', '/keys', { name: 'sneaky' }),
      403,
      'action_not_permitted',
    );
    expect((await as(owned.team.owner.caller, 'GET', '/keys')).body).toEqual(before.body);
  });

  it("tells the page each role's permissions and the person's projects", async () => {
    for (const role of ROLES) {
      const session = await as(owned.team[role].caller, 'GET', '/session');
      expect(session.status).toBe(200);
      expect(session.body).toMatchObject({
        project: owned.name,
        role,
        permissions: permissionsOf(role),
        person: { email: owned.team[role].person.email },
        projects: [{ project: owned.name, role }],
      });
    }
    expect(permissionsOf('owner')).toEqual(ACTIONS);
  });

  it('lets an admin manage members but not owners; only an owner makes an owner', async () => {
    const { admin, owner, developer } = owned.team;
    const target = newPerson('promoted');
    await people.add(owned.name, target, 'viewer');
    const path = `/members/${memberId(target)}/role`;
    expectError(await as(admin.caller, 'POST', path, { role: 'owner' }), 403, 'action_not_permitted');
    expectError(
      await as(admin.caller, 'DELETE', `/members/${memberId(owner.person)}`),
      403,
      'action_not_permitted',
    );
    expectError(
      await as(developer.caller, 'DELETE', `/members/${memberId(target)}`),
      403,
      'action_not_permitted',
    );
    expect((await as(owner.caller, 'POST', path, { role: 'owner' })).body).toMatchObject({ role: 'owner' });
    expect((await as(admin.caller, 'DELETE', `/members/${memberId(target)}`)).status).toBe(403);
    expect((await as(owner.caller, 'DELETE', `/members/${memberId(target)}`)).status).toBe(200);
  });
});

describe("members of one project against another's resources", () => {
  // Two teams for both tests: neither test changes what the other reads of them.
  let acme: Awaited<ReturnType<typeof teamProject>>;
  let globex: Awaited<ReturnType<typeof teamProject>>;
  beforeAll(async () => {
    acme = await teamProject();
    globex = await teamProject();
  });

  it("finds none of another project's keys, domains or members, and cannot switch to it", async () => {
    const intruder = acme.team.owner.caller;
    const { keyId } = await t.issueKey(globex.name);
    expectError(await as(intruder, 'POST', `/keys/${keyId}/rotate`), 404, 'key_not_found');
    expectError(await as(intruder, 'DELETE', `/keys/${keyId}`), 404, 'key_not_found');
    const victim = memberId(globex.team.viewer.person);
    expectError(await as(intruder, 'DELETE', `/members/${victim}`), 404, 'member_not_found');
    expectError(
      await as(intruder, 'POST', `/members/${victim}/role`, { role: 'owner' }),
      404,
      'member_not_found',
    );
    expectError(
      await as(intruder, 'POST', '/session/project', { project: globex.name }),
      404,
      'project_not_found',
    );
    expectError(
      await as(intruder, 'POST', '/session/project', { project: 'no-such-project' }),
      404,
      'project_not_found',
    );
    expect((await people.store.get(globex.name, globex.team.viewer.person))?.role).toBe('viewer');
    const listed = await as(intruder, 'GET', '/members');
    expect(JSON.stringify(listed.body)).not.toContain(globex.team.viewer.person.subject);
    expect((await t.keys.get(keyId))?.revokedAt).toBeUndefined();
  });

  it("answers for another project's domains, keys and members exactly as for ones that do not exist", async () => {
    const theirs = newDomain();
    expect((await as(globex.team.owner.caller, 'POST', '/domains', { name: theirs })).status).toBe(201);
    const { keyId } = await t.issueKey(globex.name);
    const intruder = acme.team.owner.caller;
    const nowhere = newDomain();
    const probes: [string, (name: string) => [string, string, unknown?]][] = [
      ['verify', (name) => ['POST', `/domains/${name}/verify`]],
      ['primary', (name) => ['POST', `/domains/${name}/primary`]],
      ['redirect', (name) => ['POST', `/domains/${name}/redirect`]],
      ['remove', (name) => ['DELETE', `/domains/${name}?confirm=${REMOVE_CONFIRMATION}`]],
    ];
    for (const [, request] of probes) {
      const [method, path] = request(theirs);
      const [, absentPath] = request(nowhere);
      const answer = await as(intruder, method, path);
      const absent = await as(intruder, method, absentPath);
      expect({ status: answer.status, code: answer.body.code }).toEqual({
        status: absent.status,
        code: absent.body.code,
      });
      expect(answer.status).toBe(404);
    }
    const absentKey = await as(intruder, 'DELETE', '/keys/aaaaaaaaaaaaaaaa');
    const theirKey = await as(intruder, 'DELETE', `/keys/${keyId}`);
    expect({ status: theirKey.status, code: theirKey.body.code }).toEqual({
      status: absentKey.status,
      code: absentKey.body.code,
    });
    // A member id that names no person at all is not found either.
    expectError(await as(intruder, 'DELETE', '/members/not%20an%20id'), 404, 'member_not_found');
    const nobody = await as(intruder, 'DELETE', `/members/${memberId(newPerson('nobody'))}`);
    const theirMember = await as(intruder, 'DELETE', `/members/${memberId(globex.team.admin.person)}`);
    expect({ status: theirMember.status, code: theirMember.body.code }).toEqual({
      status: nobody.status,
      code: nobody.body.code,
    });
    // Lists and usage are the caller's project's alone.
    const listed = JSON.stringify([
      (await as(intruder, 'GET', '/domains')).body,
      (await as(intruder, 'GET', '/keys')).body,
      (await as(intruder, 'GET', '/members')).body,
    ]);
    for (const secret of [theirs, keyId, globex.team.admin.person.subject, globex.name]) {
      expect(listed).not.toContain(secret);
    }
    const usage = await as(intruder, 'GET', '/usage');
    expect(usage.body).toMatchObject({ project: { name: acme.name } });
    expect(JSON.stringify(usage.body)).not.toContain(globex.name);
    const history = await as(intruder, 'GET', '/usage/history');
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body)).not.toContain(globex.name);
    // Nothing of theirs changed.
    const theirDomains = await as(globex.team.owner.caller, 'GET', '/domains');
    expect(JSON.stringify(theirDomains.body)).toContain(theirs);
    expect((await t.keys.get(keyId))?.revokedAt).toBeUndefined();
    expect((await people.store.get(globex.name, globex.team.admin.person))?.role).toBe('admin');
  });

  it('switches a member of two projects between them, with the role of each', async () => {
    const acme = await t.createProject('business');
    const globex = await t.createProject('business');
    const person = newPerson('both');
    await people.add(acme.name, person, 'owner');
    await people.add(globex.name, person, 'viewer');
    const caller = await people.signIn(person, acme.name);
    expect(caller.session.projects).toEqual(
      [
        { project: acme.name, role: 'owner' },
        { project: globex.name, role: 'viewer' },
      ].sort((a, b) => a.project.localeCompare(b.project)),
    );
    const switched = await as(caller, 'POST', '/session/project', { project: globex.name });
    expect(switched.body).toMatchObject({ project: globex.name, role: 'viewer' });
    expect((await as(caller, 'GET', '/usage')).body).toMatchObject({ project: { name: globex.name } });
    expectError(await as(caller, 'POST', '/keys', { name: 'x' }), 403, 'action_not_permitted');
  });
});

describe("the last owner's protection", () => {
  it('refuses to demote or remove the only owner, who may not leave either', async () => {
    const project = await t.createProject('business');
    const owner = newPerson('only');
    await people.add(project.name, owner, 'owner');
    const caller = await people.signIn(owner, project.name);
    const path = `/members/${memberId(owner)}`;
    expectError(await as(caller, 'POST', `${path}/role`, { role: 'admin' }), 409, 'last_owner');
    expectError(await as(caller, 'DELETE', path), 409, 'last_owner');
    expect((await people.store.get(project.name, owner))?.role).toBe('owner');
  });

  it('keeps one of two owners who leave at the same moment, and one of two demoted at once', async () => {
    for (const change of ['leave', 'demote'] as const) {
      for (let round = 0; round < 5; round += 1) {
        const project = await t.createProject('business');
        const pair = [newPerson('a'), newPerson('b')];
        for (const person of pair) await people.add(project.name, person, 'owner');
        const callers = await Promise.all(pair.map((person) => people.signIn(person, project.name)));
        const answers = await Promise.all(
          pair.map((person, index) => {
            const caller = callers[index] as Caller;
            return change === 'leave'
              ? as(caller, 'DELETE', `/members/${memberId(person)}`)
              : as(caller, 'POST', `/members/${memberId(person)}/role`, { role: 'admin' });
          }),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
        const owners = (await people.store.listOf(project.name)).filter((member) => member.role === 'owner');
        expect(owners).toHaveLength(1);
        expect((await t.projects.get(project.name))?.owners).toBe(1);
      }
    }
  });
});

describe("the last owner's protection, two owners acting on each other at once", () => {
  it('keeps one owner when two owners remove, or demote, each other at the same moment', async () => {
    for (const change of ['remove', 'demote'] as const) {
      for (let round = 0; round < 5; round += 1) {
        const project = await t.createProject('business');
        const pair = [newPerson('a'), newPerson('b')];
        for (const person of pair) await people.add(project.name, person, 'owner');
        const callers = await Promise.all(pair.map((person) => people.signIn(person, project.name)));
        const answers = await Promise.all(
          pair.map((_, index) => {
            const caller = callers[index] as Caller;
            const other = memberId(pair[1 - index] as Person);
            return change === 'remove'
              ? as(caller, 'DELETE', `/members/${other}`)
              : as(caller, 'POST', `/members/${other}/role`, { role: 'admin' });
          }),
        );
        // One wins; the other is refused: the last owner, or (once removed) no member at all.
        const statuses = answers.map((answer) => answer.status).sort();
        expect(statuses[0]).toBe(200);
        expect([401, 409]).toContain(statuses[1]);
        const owners = (await people.store.listOf(project.name)).filter((member) => member.role === 'owner');
        expect(owners).toHaveLength(1);
        expect((await t.projects.get(project.name))?.owners).toBe(1);
      }
    }
  });
});

describe("a removed member's sessions", () => {
  it('end within 30 s of a removal made elsewhere (the members tool), at once when made here', async () => {
    const project = await teamProject();
    const { developer, viewer, owner } = project.team;
    expect((await as(developer.caller, 'GET', '/keys')).status).toBe(200);
    await people.members.remove(project.name, developer.person, 'platform');
    // The console's cache may believe the role for up to 30 s, and no longer.
    expect((await as(developer.caller, 'GET', '/keys')).status).toBe(200);
    t.advance(ROLE_CACHE_MS);
    expectError(await as(developer.caller, 'GET', '/keys'), 401, 'membership_ended');
    expectError(await as(developer.caller, 'GET', '/keys'), 401, 'session_ended');
    expect((await as(viewer.caller, 'GET', '/keys')).status).toBe(200);
    expect((await as(owner.caller, 'DELETE', `/members/${memberId(viewer.person)}`)).status).toBe(200);
    expectError(await as(viewer.caller, 'GET', '/keys'), 401, 'membership_ended');
  });

  it("a role changed elsewhere holds within 30 s: a demoted developer's next create is refused", async () => {
    const project = await teamProject();
    const { developer } = project.team;
    await people.members.setRole(project.name, developer.person, 'viewer', 'platform');
    t.advance(ROLE_CACHE_MS);
    expectError(await as(developer.caller, 'POST', '/keys', { name: 'late' }), 403, 'action_not_permitted');
    expect((await as(developer.caller, 'GET', '/session')).body).toMatchObject({ role: 'viewer' });
  });
});

describe('the migration from console tokens', () => {
  it("keeps a project's console token working, as an owner, until its first owner is added", async () => {
    const project = await t.createProject('business');
    const tokenSession = await t.signIn(project.consoleToken);
    const usage = await t.call('/usage', { bearer: project.consoleToken });
    expect(usage.status).toBe(200);
    const session = await t.call('/session', { cookie: tokenSession.cookie });
    expect(session.body).toMatchObject({ role: 'owner', permissions: ACTIONS });
    const added = await t.call('/members', {
      method: 'POST',
      bearer: project.consoleToken,
      body: { ...pick(newPerson('heir')), role: 'owner' },
    });
    expect(added.status).toBe(201);
    expectError(await t.call('/usage', { bearer: project.consoleToken }), 401, 'console_token_retired');
    expectError(await t.call('/usage', { cookie: tokenSession.cookie }), 401, 'console_token_retired');
    const again = await t.call('/session', {
      method: 'POST',
      origin: t.consoleOrigin,
      body: { token: project.consoleToken },
    });
    expectError(again, 401, 'console_token_retired');
  });

  it('a token adds a member only when it names the issuer', async () => {
    const project = await t.createProject('business');
    const { subject, email } = newPerson('x');
    const answer = await t.call('/members', {
      method: 'POST',
      bearer: project.consoleToken,
      body: { subject, email, role: 'viewer' },
    });
    expectError(answer, 400, 'invalid_body');
  });
});

function pick({ issuer, subject, email, name }: Person) {
  return { issuer, subject, email, ...(name ? { name } : {}) };
}
