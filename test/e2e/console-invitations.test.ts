import { SESSION_COOKIE_NAME, SIGN_IN_COOKIE_NAME } from '../../lambda/api/console-cookies';
import { INVITATION_COOKIE_NAME } from '../../lambda/api/invitation-cookie';
import { INVITATION_TTL_MS } from '../../lambda/core/invitations';
import type { Role } from '../../lambda/core/permissions';
import { DEV_COLLEAGUE, DEV_UNVERIFIED, DEV_VIEWER, type DevPerson } from '../../local/dev-people';
import { consolePeople, newPerson } from '../support/console-people';
import { type CallAs, type Caller, callWithSession } from '../support/console-callers';
import { type ConsoleTestApi, expectError, startConsoleTestApi } from '../support/local-console';
import { acceptAs, invitationBrowser, refusedWith } from '../support/invitation-browser';

/**
 * Invitations over HTTP against local mode's console and its real OpenID provider (issue 27):
 * sending, listing, revoking; a link opened, then accepted at the sign-in that follows; every
 * refusal (wrong email, unverified, revoked, used, expired on the service's clock); another
 * project's invitations invisible; an admin cannot invite an owner; a keyless caller changes
 * nothing; of two concurrent accepts, one wins.
 */

let t: ConsoleTestApi;
let people: ReturnType<typeof consolePeople>;

beforeAll(async () => {
  t = await startConsoleTestApi({ openIdProvider: true });
  people = consolePeople(t);
});

// Each test in a minute of its own: opening links and signing in are counted per client IP (20 a minute).
beforeEach(() => t.advance(60_000));

afterAll(async () => {
  people?.close();
  await t?.close();
});

const as: CallAs = (...call) => callWithSession(t, ...call);

/** A project with an owner and an admin signed in. */
async function team() {
  const project = await t.createProject('pro');
  const callers = {} as Record<'owner' | 'admin', Caller>;
  for (const role of ['owner', 'admin'] as const) {
    const person = newPerson(role);
    await people.add(project.name, person, role);
    callers[role] = await people.signIn(person, project.name);
  }
  return { name: project.name, ...callers };
}

/** Invites `email` with `role` as `caller`: the token of the link. */
async function invite(caller: Caller, email: string, role: Role = 'developer') {
  const sent = await as(caller, 'POST', '/invitations', { email, role });
  if (sent.status !== 201) throw new Error(`invite: ${sent.status} ${JSON.stringify(sent.body)}`);
  const link = new URL(sent.body.link as string);
  const token = new URLSearchParams(link.hash.slice(1)).get('invitation') ?? '';
  return { token, link, invitation: sent.body.invitation as { invitationId: string } };
}

/** A browser of its own cookies (test/support/invitation-browser.ts). */
const browser = () => invitationBrowser(t);

/** Opens the link in a new browser, signs in as `person` and returns to the console. */
const accept = (token: string, person: DevPerson) => acceptAs(t, token, person);

describe('an invitation', () => {
  test('is sent by an owner, listed as pending (never its secret), and joins the invited person once', async () => {
    const project = await team();
    const { token, link, invitation } = await invite(project.owner, DEV_COLLEAGUE.email);
    expect(link.origin).toBe(t.consoleOrigin);
    expect(token).toMatch(/^inv_[0-9a-f]{16}_[\w-]{43}$/);
    const listed = await as(project.admin, 'GET', '/invitations');
    expect(listed.status).toBe(200);
    expect(listed.body.invitations).toEqual([
      expect.objectContaining({
        invitationId: invitation.invitationId,
        email: DEV_COLLEAGUE.email,
        role: 'developer',
        state: 'pending',
      }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(token.slice(-43));

    const outbox = t.api.outbox.messages().filter((message) => message.project === project.name);
    expect(outbox).toEqual([expect.objectContaining({ to: DEV_COLLEAGUE.email, link: link.href })]);

    const b = browser();
    const opened = await b.open(token);
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({
      project: project.name,
      email: DEV_COLLEAGUE.email,
      role: 'developer',
    });
    expect(opened.cookies[0]).toMatch(
      new RegExp(
        `^${INVITATION_COOKIE_NAME}=inv_[\\w-]+; Path=/; Max-Age=600; HttpOnly; Secure; SameSite=Lax$`,
      ),
    );
    const returned = await b.visit(await b.signInAs(DEV_COLLEAGUE));
    expect(returned.status).toBe(303);
    expect(returned.location).toBe('/console/');
    expect(b.jar.has(INVITATION_COOKIE_NAME)).toBe(false);
    const session = await t.call('/session', { cookie: b.jar.get(SESSION_COOKIE_NAME) ?? '' });
    expect(session.body).toMatchObject({
      project: project.name,
      role: 'developer',
      person: { email: DEV_COLLEAGUE.email },
    });
    expect((await as(project.owner, 'GET', '/invitations')).body.invitations).toEqual([]);

    // A second use of the same link.
    expectError(await browser().open(token), 409, 'invitation_used');
  });

  test('accepted with another email is refused, and the invitation stays pending', async () => {
    const project = await team();
    const { token } = await invite(project.owner, DEV_COLLEAGUE.email);
    const refused = await accept(token, DEV_VIEWER);
    expect(refused.status).toBe(303);
    expect(refused.location).toBe(refusedWith('invitation_wrong_email'));
    expect(refused.session).toBeUndefined();
    expect((await as(project.owner, 'GET', '/members')).body.members).toHaveLength(2);
    expect((await browser().open(token)).status).toBe(200);
  });

  test('accepted with an unverified email is refused', async () => {
    const project = await team();
    const { token } = await invite(project.owner, DEV_UNVERIFIED.email);
    const refused = await accept(token, DEV_UNVERIFIED);
    expect(refused.location).toBe(refusedWith('invitation_email_unverified'));
    expect(refused.session).toBeUndefined();
  });

  test('revoked, is refused at the link and at a sign-in already under way', async () => {
    const project = await team();
    const { token, invitation } = await invite(project.owner, DEV_COLLEAGUE.email);
    const b = browser();
    expect((await b.open(token)).status).toBe(200);
    const revoked = await as(project.admin, 'DELETE', `/invitations/${invitation.invitationId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.invitation).toMatchObject({ state: 'revoked' });
    expectError(await browser().open(token), 410, 'invitation_revoked');
    const returned = await b.visit(await b.signInAs(DEV_COLLEAGUE));
    expect(returned.location).toBe(refusedWith('invitation_revoked'));
    expectError(
      await as(project.owner, 'DELETE', `/invitations/${invitation.invitationId}`),
      410,
      'invitation_revoked',
    );
  });

  test('with a wrong secret, or malformed, is not found', async () => {
    const project = await team();
    const { token } = await invite(project.owner, DEV_COLLEAGUE.email);
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expectError(await browser().open(wrong), 404, 'invitation_not_found');
    expectError(await browser().open('inv_nothing'), 404, 'invitation_not_found');
  });

  test('of another project is invisible: not listed, not revoked', async () => {
    const mine = await team();
    const theirs = await team();
    const { invitation } = await invite(theirs.owner, DEV_COLLEAGUE.email);
    expect((await as(mine.owner, 'GET', '/invitations')).body.invitations).toEqual([]);
    expectError(
      await as(mine.owner, 'DELETE', `/invitations/${invitation.invitationId}`),
      404,
      'invitation_not_found',
    );
    expect((await as(theirs.owner, 'GET', '/invitations')).body.invitations).toHaveLength(1);
  });

  test('an admin cannot invite an owner; an owner can', async () => {
    const project = await team();
    expectError(
      await as(project.admin, 'POST', '/invitations', { email: 'boss@people.test', role: 'owner' }),
      403,
      'action_not_permitted',
    );
    expect((await as(project.admin, 'GET', '/invitations')).body.invitations).toEqual([]);
    expect(
      (await as(project.owner, 'POST', '/invitations', { email: 'boss@people.test', role: 'owner' })).status,
    ).toBe(201);
  });

  test('a developer or viewer cannot invite', async () => {
    const project = await team();
    for (const role of ['developer', 'viewer'] as const) {
      const person = newPerson(role);
      await people.add(project.name, person, role);
      const caller = await people.signIn(person, project.name);
      expectError(
        await as(caller, 'POST', '/invitations', { email: 'x@people.test', role: 'viewer' }),
        403,
        'action_not_permitted',
      );
    }
  });

  test('a keyless caller changes nothing', async () => {
    const project = await team();
    const { invitation } = await invite(project.owner, DEV_COLLEAGUE.email);
    const before = (await as(project.owner, 'GET', '/invitations')).body;
    expectError(
      await t.call('/invitations', { method: 'POST', body: { email: 'x@people.test', role: 'owner' } }),
      401,
      'not_signed_in',
    );
    expectError(
      await t.call(`/invitations/${invitation.invitationId}`, { method: 'DELETE' }),
      401,
      'not_signed_in',
    );
    expectError(await t.call('/invitations'), 401, 'not_signed_in');
    // The session without the page's Origin and CSRF token (a forged request) is refused too.
    expectError(
      await t.call(`/invitations/${invitation.invitationId}`, {
        method: 'DELETE',
        cookie: project.owner.cookie,
      }),
      403,
      'csrf_origin_refused',
    );
    // Opening needs the console's Origin.
    expectError(
      await t.call('/invitations/open', { method: 'POST', body: { token: 'inv_x' } }),
      403,
      'csrf_origin_refused',
    );
    expect((await as(project.owner, 'GET', '/invitations')).body).toEqual(before);
  });

  test('accepted twice at once: one wins, the other is refused as used', async () => {
    const project = await team();
    const { token } = await invite(project.owner, DEV_COLLEAGUE.email);
    const first = browser();
    const second = browser();
    expect((await first.open(token)).status).toBe(200);
    expect((await second.open(token)).status).toBe(200);
    const paths = [await first.signInAs(DEV_COLLEAGUE), await second.signInAs(DEV_COLLEAGUE)];
    const returned = await Promise.all([first.visit(paths[0] ?? ''), second.visit(paths[1] ?? '')]);
    expect(returned.map((each) => each.location).sort()).toEqual([
      '/console/',
      refusedWith('invitation_used'),
    ]);
    const members = (await as(project.owner, 'GET', '/members')).body.members as { email: string }[];
    expect(members.filter((member) => member.email === DEV_COLLEAGUE.email)).toHaveLength(1);
  });

  test('expires after 7 days on the service clock', async () => {
    const project = await team();
    const { token } = await invite(project.owner, DEV_COLLEAGUE.email);
    const b = browser();
    expect((await b.open(token)).status).toBe(200);
    t.advance(INVITATION_TTL_MS - 1000);
    expect((await browser().open(token)).status).toBe(200);
    t.advance(1000);
    expectError(await browser().open(token), 410, 'invitation_expired');
    // No longer pending (the earlier sessions ended on the moved clock: a fresh owner looks).
    const owner = await people.signIn(await addOwner(project.name), project.name);
    expect((await as(owner, 'GET', '/invitations')).body.invitations).toEqual([]);
    const returned = await b.visit(await b.signInAs(DEV_COLLEAGUE));
    expect(returned.location).toBe(refusedWith('invitation_expired'));
    expect(b.jar.has(SIGN_IN_COOKIE_NAME)).toBe(false);
  });
});

describe("an invitation's acceptance in the audit log (issue 28)", () => {
  interface Entry {
    readonly action: string;
    readonly actor: { readonly kind: string; readonly person?: { readonly email: string } };
    readonly outcome: { readonly result: string };
  }
  const entries = async (caller: Caller, action: string) => {
    const page = await as(caller, 'GET', `/audit?action=${action}`);
    expect(page.status).toBe(200);
    return page.body.entries as Entry[];
  };

  test('is recorded in the project as the invited person, with their sign-in; a refused one records neither', async () => {
    const project = await team();
    const { token } = await invite(project.owner, DEV_COLLEAGUE.email);
    const refused = await accept(token, DEV_VIEWER);
    expect(refused.location).toBe(refusedWith('invitation_wrong_email'));
    expect(await entries(project.owner, 'invitation.accept')).toEqual([]);

    expect((await accept(token, DEV_COLLEAGUE)).location).toBe('/console/');
    const person = { kind: 'person', person: expect.objectContaining({ email: DEV_COLLEAGUE.email }) };
    expect(await entries(project.owner, 'invitation.accept')).toEqual([
      expect.objectContaining({ action: 'invitation.accept', actor: person, outcome: { result: 'success' } }),
    ]);
    const signIns = (await entries(project.owner, 'sign-in')).filter(
      (entry) => entry.actor.person?.email !== undefined,
    );
    expect(signIns.map((entry) => entry.actor.person?.email)).toContain(DEV_COLLEAGUE.email);
    expect(signIns.map((entry) => entry.actor.person?.email)).not.toContain(DEV_VIEWER.email);
  });
});

/** A fresh owner of the project (the earlier sessions ended on the moved clock). */
async function addOwner(project: string) {
  const person = newPerson('owner');
  await people.add(project, person, 'owner');
  return person;
}
