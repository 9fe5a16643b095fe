import { StoreUnavailableError } from '../../lambda/core/errors';
import { INVITATION_DAY_MS, MAX_INVITATIONS_PER_DAY } from '../../lambda/core/invitation-limits';
import { Invitations } from '../../lambda/core/invitations';
import { type MemberRecord, Members, type MemberStore } from '../../lambda/core/members';
import type { Role } from '../../lambda/core/permissions';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { InvitationRepository } from '../../lambda/store/invitation-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { localOutbox } from '../../local/invitation-outbox';
import { DEV_COLLEAGUE } from '../../local/dev-people';
import { consolePeople, newPerson } from '../support/console-people';
import { acceptAs, invitationBrowser, refusedWith } from '../support/invitation-browser';
import { type CallAs, type Caller, callWithSession } from '../support/console-callers';
import { type ConsoleTestApi, expectError, startConsoleTestApi } from '../support/local-console';

/**
 * What a pending invitation may still do once things changed (issue 27's security review), over
 * HTTP against local mode's console, its real OpenID provider and embedded store: an inviter
 * removed or demoted voids their invitations; an invitation never joins a later project of the
 * same name, nor a deleted one (a refusal, never a 500); a failed accept does not burn it;
 * sending and revoking does not make the platform an unbounded mailer.
 */

let t: ConsoleTestApi;
let people: ReturnType<typeof consolePeople>;

beforeAll(async () => {
  t = await startConsoleTestApi({ openIdProvider: true });
  people = consolePeople(t);
});

// Each test in a minute of its own: opening links and signing in are counted per client IP.
beforeEach(() => t.advance(60_000));

afterAll(async () => {
  people?.close();
  await t?.close();
});

const as: CallAs = (...call) => callWithSession(t, ...call);

/** A project with an owner and an admin, each signed in. */
async function team() {
  const { name } = await t.createProject('pro');
  const owner = newPerson('owner');
  const admin = newPerson('admin');
  await people.add(name, owner, 'owner');
  await people.add(name, admin, 'admin');
  return {
    name,
    admin,
    as: { owner: await people.signIn(owner, name), admin: await people.signIn(admin, name) },
  };
}

/** Invites the colleague as `caller`: the link's token. */
async function invite(caller: Caller, role: Role = 'admin'): Promise<string> {
  const sent = await as(caller, 'POST', '/invitations', { email: DEV_COLLEAGUE.email, role });
  if (sent.status !== 201) throw new Error(`invite: ${sent.status} ${JSON.stringify(sent.body)}`);
  return new URLSearchParams(new URL(sent.body.link as string).hash.slice(1)).get('invitation') ?? '';
}

/** The colleague's role in the project as stored, undefined when they are no member. */
const roleOfColleagueIn = async (project: string) =>
  (await people.members.listOf(project)).find((each) => each.subject === DEV_COLLEAGUE.subject)?.role;

describe("an inviter's removal or demotion voids their pending invitations", () => {
  test('an admin removed by an owner: their invitation is refused at accept, and joins nobody', async () => {
    const project = await team();
    const token = await invite(project.as.admin);
    await people.members.remove(project.name, project.admin, { role: 'owner' });

    const returned = await acceptAs(t, token, DEV_COLLEAGUE);
    expect(returned.location).toBe(refusedWith('invitation_inviter_gone'));
    expect(await roleOfColleagueIn(project.name)).toBeUndefined();
  });

  test('an admin demoted to viewer: refused; an admin still admin: accepted', async () => {
    const demoted = await team();
    const voided = await invite(demoted.as.admin, 'developer');
    await people.members.setRole(demoted.name, demoted.admin, 'viewer', { role: 'owner' });
    expect((await acceptAs(t, voided, DEV_COLLEAGUE)).location).toBe(refusedWith('invitation_inviter_gone'));
    expect(await roleOfColleagueIn(demoted.name)).toBeUndefined();

    const kept = await team();
    const valid = await invite(kept.as.admin);
    const returned = await acceptAs(t, valid, DEV_COLLEAGUE);
    expect(returned.location).toBe('/console/');
    expect(await roleOfColleagueIn(kept.name)).toBe('admin');
  });

  test("a console token's invitation is void once the project has an owner (the token is retired)", async () => {
    const { name, consoleToken } = await t.createProject('pro');
    const sent = await t.call('/invitations', {
      method: 'POST',
      bearer: consoleToken,
      body: { email: DEV_COLLEAGUE.email, role: 'developer' },
    });
    expect(sent.status).toBe(201);
    const token =
      new URLSearchParams(new URL(sent.body.link as string).hash.slice(1)).get('invitation') ?? '';
    await people.add(name, newPerson('owner'), 'owner');
    expect((await acceptAs(t, token, DEV_COLLEAGUE)).location).toBe(refusedWith('invitation_inviter_gone'));
  });
});

describe('an invitation never outlives its project', () => {
  test('into a later project of the same name (its deletion left the invitation): not found', async () => {
    const project = await team();
    const token = await invite(project.as.owner, 'developer');
    const record = await t.projects.get(project.name);
    // The project is deleted, but its invitations' removal failed; a project of that name is made.
    await t.projects.delete(project.name);
    t.advance(60_000);
    await t.projects.create({ ...record!, createdAt: new Date(t.now()).toISOString() });

    expectError(await invitationBrowser(t).open(token), 404, 'invitation_not_found');
    const b = invitationBrowser(t);
    // Opened while the old project stood, accepted after: refused at the callback too.
    await t.projects.delete(project.name);
    await t.projects.create(record!);
    expect((await b.open(token)).status).toBe(200);
    await t.projects.delete(project.name);
    await t.projects.create({ ...record!, createdAt: new Date(t.now()).toISOString() });
    const returned = await b.visit(await b.signInAs(DEV_COLLEAGUE));
    expect(returned.location).toBe(refusedWith('invitation_not_found'));
    expect(await roleOfColleagueIn(project.name)).toBeUndefined();
  });

  test('to a project deleted after its link was opened: the refusal, not a 500', async () => {
    const project = await team();
    const token = await invite(project.as.owner, 'developer');
    const b = invitationBrowser(t);
    expect((await b.open(token)).status).toBe(200);
    await t.projects.delete(project.name);

    const returned = await b.visit(await b.signInAs(DEV_COLLEAGUE));
    expect(returned.status).toBe(303);
    expect(returned.location).toBe(refusedWith('invitation_not_found'));
  });
});

describe('a failed accept', () => {
  test('does not burn the invitation: it is pending again, its place kept, and a retry joins', async () => {
    const project = await team();
    const person = newPerson('invitee');
    const sent = await as(project.as.owner, 'POST', '/invitations', {
      email: person.email,
      role: 'developer',
    });
    expect(sent.status).toBe(201);
    const token =
      new URLSearchParams(new URL(sent.body.link as string).hash.slice(1)).get('invitation') ?? '';
    const documents = createDocumentClient(t.api.dynamodbEndpoint);
    try {
      const repository = new InvitationRepository(documents, LOCAL_TABLE_NAMES.invitations);
      // The members table fails once, as a throttled or unreachable table does.
      let failures = 1;
      const failingOnce: MemberStore = Object.assign(Object.create(people.store) as MemberStore, {
        create: (record: MemberRecord) =>
          failures-- > 0
            ? Promise.reject(new StoreUnavailableError(new Error('throttled')))
            : people.store.create(record),
      });
      const invitations = new Invitations({
        store: repository,
        members: new Members({
          store: failingOnce,
          owners: people.projects,
          projects: people.projects,
          clock: t.now,
        }),
        projects: people.projects,
        mailer: localOutbox(),
        linkOf: (each) => each,
        vouched: () => [],
        clock: t.now,
      });
      const places = await repository.placesTaken(project.name);

      await expect(invitations.accept(token, person)).rejects.toBeInstanceOf(StoreUnavailableError);
      const pending = (await as(project.as.owner, 'GET', '/invitations')).body.invitations;
      expect(pending).toEqual([expect.objectContaining({ email: person.email, state: 'pending' })]);
      expect(await repository.placesTaken(project.name)).toBe(places);

      await expect(invitations.accept(token, person)).resolves.toMatchObject({ role: 'developer' });
      expect(await repository.placesTaken(project.name)).toBe(places - 1);
      await expect(invitations.accept(token, person)).rejects.toMatchObject({ kind: 'invitation_used' });
    } finally {
      documents.destroy();
    }
  });

  test('because the project went between the checks and the join: not found, and still pending', async () => {
    const project = await team();
    const person = newPerson('invitee');
    const sent = await as(project.as.owner, 'POST', '/invitations', { email: person.email, role: 'viewer' });
    const token =
      new URLSearchParams(new URL(sent.body.link as string).hash.slice(1)).get('invitation') ?? '';
    const documents = createDocumentClient(t.api.dynamodbEndpoint);
    try {
      // The member rules find the project gone (deleted after the invitation's own checks read it).
      const gone = { get: async () => undefined };
      const invitations = new Invitations({
        store: new InvitationRepository(documents, LOCAL_TABLE_NAMES.invitations),
        members: new Members({ store: people.store, owners: people.projects, projects: gone, clock: t.now }),
        projects: people.projects,
        mailer: localOutbox(),
        linkOf: (each) => each,
        vouched: () => [],
        clock: t.now,
      });
      await expect(invitations.accept(token, person)).rejects.toMatchObject({ kind: 'invitation_not_found' });
      const pending = (await as(project.as.owner, 'GET', '/invitations')).body.invitations;
      expect(pending).toEqual([expect.objectContaining({ email: person.email, state: 'pending' })]);
    } finally {
      documents.destroy();
    }
  });
});

test(`send-then-revoke is capped at ${MAX_INVITATIONS_PER_DAY} invitations a day per project, on the service's clock`, async () => {
  const project = await team();
  const other = await team();
  const send = (caller: Caller) =>
    as(caller, 'POST', '/invitations', { email: `${newPerson('x').subject}@people.test`, role: 'viewer' });
  // The day's first invitations, sent and revoked: stored as they are, since what counts is the
  // last one below, made through the console (a hundred round trips would test the machine's speed).
  const first = t.now();
  const documents = createDocumentClient(t.api.dynamodbEndpoint);
  try {
    const store = new InvitationRepository(documents, LOCAL_TABLE_NAMES.invitations);
    const at = new Date(first).toISOString();
    for (let made = 1; made < MAX_INVITATIONS_PER_DAY; made += 1) {
      await store.create({
        invitationId: `${made.toString(16).padStart(16, '0')}`,
        project: project.name,
        secretHash: '0'.repeat(64),
        email: `sent-${made}@people.test`,
        role: 'viewer',
        createdAt: at,
        expiresAt: new Date(first + 7 * INVITATION_DAY_MS).toISOString(),
        state: 'revoked',
        revokedAt: at,
      });
    }
  } finally {
    documents.destroy();
  }
  const last = await send(project.as.admin);
  expect(last.status).toBe(201);
  const { invitationId } = last.body.invitation as { invitationId: string };
  expect((await as(project.as.admin, 'DELETE', `/invitations/${invitationId}`)).status).toBe(200);
  expectError(await send(project.as.admin), 409, 'too_many_invitations_today');
  expectError(await send(project.as.owner), 409, 'too_many_invitations_today');
  // Another project's allowance is its own.
  expect((await send(other.as.admin)).status).toBe(201);

  // A day after the first ones were made, places in the window come back.
  t.advance(first + INVITATION_DAY_MS + 1 - t.now());
  // (The sessions ended meanwhile: the admin signs in again.)
  expect((await send(await people.signIn(project.admin, project.name))).status).toBe(201);
});
