import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { InvitationRepository } from '../../lambda/store/invitation-repository';
import {
  INVITATION_KEPT_MS,
  INVITATION_TTL_MS,
  type InvitationMailer,
  type InvitationRecord,
  Invitations,
  type InvitationStore,
  MAX_PENDING_INVITATIONS,
} from '../../lambda/core/invitations';
import type { Role } from '../../lambda/core/permissions';
import { INVITATIONS_TABLE } from '../../lambda/store/table-schema';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { sweepExpiredItems } from '../../local/expired-item-sweeper';
import { localOutbox } from '../../local/invitation-outbox';
import { consolePeople, newPerson } from '../support/console-people';
import { type CallAs, type Caller, callWithSession } from '../support/console-callers';
import { type ConsoleTestApi, expectError, startConsoleTestApi } from '../support/local-console';

/**
 * The cap of pending invitations under concurrency (issue 27), over HTTP against local mode's
 * console and its embedded store: simultaneous invites never pass it; revoking, accepting and
 * expiry (on the service's clock) give places back, each once; a refused or failed create keeps
 * none; each project has a cap of its own. Accepting, and creates whose store or mail fails, go
 * through the same invitation rules over the same tables (the sign-in's acceptance over HTTP is
 * console-invitations.test.ts's).
 */

let t: ConsoleTestApi;
let people: ReturnType<typeof consolePeople>;
let documents: ReturnType<typeof createDocumentClient>;
let repository: InvitationRepository;

beforeAll(async () => {
  t = await startConsoleTestApi();
  people = consolePeople(t);
  documents = createDocumentClient(t.api.dynamodbEndpoint);
  repository = new InvitationRepository(documents, LOCAL_TABLE_NAMES.invitations);
});

// Each test in a minute of its own: the console's calls are counted per project and minute.
beforeEach(() => t.advance(60_000));

afterAll(async () => {
  documents?.destroy();
  people?.close();
  await t?.close();
});

const as: CallAs = (...call) => callWithSession(t, ...call);

/** A new project and a signed-in member of it with `role` (an owner by default). */
async function projectWith(role: Role = 'owner') {
  const { name } = await t.createProject('pro');
  return { name, caller: await member(name, role) };
}

async function member(project: string, role: Role): Promise<Caller> {
  const person = newPerson(role);
  await people.add(project, person, role);
  return people.signIn(person, project);
}

let invited = 0;
const freshAddress = () => `invitee-${(invited += 1)}@people.test`;

const invite = (caller: Caller, email = freshAddress(), role: Role = 'developer') =>
  as(caller, 'POST', '/invitations', { email, role });

/** Who fills a project: the console-token owner, the one inviter every project has from its start. */
const FILLER = { role: 'owner' as const, ref: 'console-token' as const };

/**
 * `count` pending invitations of the project, each taking its place, made by the invitation rules
 * the console's create runs, in this process, with local mode's outbox as their mailer: their
 * tokens. They are a test's starting point, not its subject; the HTTP creates are (a few at or
 * past the cap in each test): 330 creates over HTTP were three quarters of the file's time.
 */
async function fill(project: string, count: number): Promise<string[]> {
  const sender = rules({ mailer: t.api.outbox });
  const tokens: string[] = [];
  while (tokens.length < count) {
    const { link } = await sender.send(project, freshAddress(), 'developer', FILLER);
    tokens.push(new URL(link).hash.split('=')[1] ?? '');
  }
  return tokens;
}

const pending = async (caller: Caller) =>
  ((await as(caller, 'GET', '/invitations')).body.invitations as unknown[]).length;

/** The invitation rules over local mode's tables, with a store or mailer of the test's. */
function rules(options: { store?: InvitationStore; mailer?: InvitationMailer } = {}) {
  return new Invitations({
    store: options.store ?? repository,
    members: people.members,
    projects: people.projects,
    mailer: options.mailer ?? localOutbox(),
    linkOf: (token) => `${t.consoleOrigin}/console/#invitation=${token}`,
    vouched: () => [],
    clock: t.now,
  });
}

test(`60 simultaneous invites to a project with 45 pending leave exactly ${MAX_PENDING_INVITATIONS}, the rest refused`, async () => {
  const { name, caller } = await projectWith();
  await fill(name, 45);

  const answers = await Promise.all(Array.from({ length: 60 }, () => invite(caller)));
  const created = answers.filter((answer) => answer.status === 201);
  const refused = answers.filter((answer) => answer.status !== 201);
  expect(created).toHaveLength(5);
  expect(refused).toHaveLength(55);
  for (const answer of refused) expectError(answer, 409, 'too_many_invitations');
  expect(await pending(caller)).toBe(MAX_PENDING_INVITATIONS);
  expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS);
  // A refused invite sent no email.
  expect(t.api.outbox.messages().filter((message) => message.project === name)).toHaveLength(50);
});

test("another project's cap is its own", async () => {
  const full = await projectWith();
  const other = await projectWith();
  await fill(full.name, MAX_PENDING_INVITATIONS);
  expectError(await invite(full.caller), 409, 'too_many_invitations');
  expect((await invite(other.caller)).status).toBe(201);
  expect(await repository.placesTaken(other.name)).toBe(1);
  expect(await repository.placesTaken(full.name)).toBe(MAX_PENDING_INVITATIONS);
});

test('revoking frees a place, once', async () => {
  const { name, caller } = await projectWith();
  await fill(name, MAX_PENDING_INVITATIONS);
  const [first] = (await as(caller, 'GET', '/invitations')).body.invitations as { invitationId: string }[];
  const path = `/invitations/${first?.invitationId ?? ''}`;
  expect((await as(caller, 'DELETE', path)).status).toBe(200);
  expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);
  expectError(await as(caller, 'DELETE', path), 410, 'invitation_revoked');
  expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);
  expect((await invite(caller)).status).toBe(201);
  expectError(await invite(caller), 409, 'too_many_invitations');
});

test('accepting frees a place, once', async () => {
  const { name, caller } = await projectWith();
  const colleague = newPerson('colleague');
  const sent = await invite(caller, colleague.email);
  expect(sent.status).toBe(201);
  const token = new URL(sent.body.link as string).hash.split('=')[1] ?? '';
  await fill(name, MAX_PENDING_INVITATIONS - 1);
  expectError(await invite(caller), 409, 'too_many_invitations');

  const joined = await rules().accept(token, colleague);
  expect(joined).toMatchObject({ project: name, role: 'developer' });
  expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);
  await expect(rules().accept(token, colleague)).rejects.toMatchObject({ kind: 'invitation_used' });
  expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);
  expect((await invite(caller)).status).toBe(201);
  expectError(await invite(caller), 409, 'too_many_invitations');
});

test('expired invitations give their places back: an opened link, and each one reclaimed once at the cap', async () => {
  const { name } = await projectWith();
  const tokens = await fill(name, 10);
  t.advance(INVITATION_TTL_MS - 60_000);
  // The earlier sessions ended on the moved clock: a fresh owner invites.
  const owner = await member(name, 'owner');
  await fill(name, MAX_PENDING_INVITATIONS - 10);
  t.advance(60_000);
  // The first 10 expired, and still hold their places until they are found.
  expect(await pending(owner)).toBe(MAX_PENDING_INVITATIONS - 10);
  expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS);

  const opened = await t.call('/invitations/open', {
    method: 'POST',
    origin: t.consoleOrigin,
    body: { token: tokens[0] },
  });
  expectError(opened, 410, 'invitation_expired');
  expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);

  // 20 at once at the cap: 1 free place and the 9 expired ones, each reclaimed once whoever finds it.
  const answers = await Promise.all(Array.from({ length: 20 }, () => invite(owner)));
  expect(answers.filter((answer) => answer.status === 201)).toHaveLength(10);
  for (const answer of answers.filter((each) => each.status !== 201)) {
    expectError(answer, 409, 'too_many_invitations');
  }
  expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS);
  expect(await pending(owner)).toBe(MAX_PENDING_INVITATIONS);
});

test('the TTL never deletes an invitation that still holds its place; once given back, it may', async () => {
  const { name } = await projectWith();
  const [token] = await fill(name, 1);
  const id = (token ?? '').slice(4, 20);
  const sweep = (atMs: number) =>
    sweepExpiredItems(documents, INVITATIONS_TABLE, LOCAL_TABLE_NAMES.invitations, atMs);
  // Long past its expiry, unfound: it stays, and so does its place.
  await sweep(t.now() + INVITATION_TTL_MS + 2 * INVITATION_KEPT_MS);
  expect(await repository.get(id)).toMatchObject({ state: 'pending', holdsPlace: true });
  expect(await repository.placesTaken(name)).toBe(1);

  t.advance(INVITATION_TTL_MS);
  await expect(rules().open(token ?? '')).rejects.toMatchObject({ kind: 'invitation_expired' });
  expect(await repository.placesTaken(name)).toBe(0);
  await sweep(t.now() + INVITATION_KEPT_MS - 60_000);
  expect(await repository.get(id)).toBeDefined();
  await sweep(t.now() + INVITATION_KEPT_MS + 1000);
  expect(await repository.get(id)).toBeUndefined();
  // The counter (which the first sweep left) is no invitation: no listing shows it, no id names it.
  expect(await repository.listOf(name)).toEqual([]);
  expect(await repository.get(`#places#${name}`)).toBeUndefined();
});

describe('a create that is refused or fails keeps no place', () => {
  test('refused: a bad address, a role the inviter may not give, a caller who may not invite', async () => {
    const { name, caller } = await projectWith();
    await fill(name, MAX_PENDING_INVITATIONS - 1);
    expectError(await invite(caller, 'not-an-address'), 400, 'invalid_body');
    const admin = await member(name, 'admin');
    expectError(await invite(admin, freshAddress(), 'owner'), 403, 'action_not_permitted');
    const developer = await member(name, 'developer');
    expectError(await invite(developer), 403, 'action_not_permitted');
    expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);
    expect((await invite(caller)).status).toBe(201);
    expectError(await invite(caller), 409, 'too_many_invitations');
  });

  test('failed: the store refuses the invitation, or its email cannot be sent', async () => {
    const { name, caller } = await projectWith();
    await fill(name, MAX_PENDING_INVITATIONS - 1);
    const owner = { role: 'owner' as const, ref: 'console-token' as const };

    // The store's put fails after the place was taken (a throttled or unreachable table).
    const failingPut: InvitationStore = Object.assign(Object.create(repository) as InvitationRepository, {
      create: () => Promise.reject(new Error('the table is unreachable')),
    });
    await expect(rules({ store: failingPut }).send(name, freshAddress(), 'viewer', owner)).rejects.toThrow(
      'the table is unreachable',
    );
    expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);

    // The put is made, but its answer is lost: the invitation is taken back, its place given back once.
    const lostAnswer: InvitationStore = Object.assign(Object.create(repository) as InvitationRepository, {
      create: async (record: InvitationRecord) => {
        await repository.create(record);
        throw new Error('the answer was lost');
      },
    });
    await expect(
      rules({ store: lostAnswer }).send(name, 'lost@people.test', 'viewer', owner),
    ).rejects.toThrow('the answer was lost');
    expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);
    const lost = (await repository.listOf(name)).find((each) => each.email === 'lost@people.test');
    expect(lost).toMatchObject({ state: 'revoked' });
    expect(lost?.holdsPlace).toBeUndefined();

    // The email fails after the invitation was stored: nobody got its link, so it is taken back.
    const failingMail: InvitationMailer = { send: () => Promise.reject(new Error('the mailer is down')) };
    await expect(rules({ mailer: failingMail }).send(name, freshAddress(), 'viewer', owner)).rejects.toThrow(
      'the mailer is down',
    );
    expect(await repository.placesTaken(name)).toBe(MAX_PENDING_INVITATIONS - 1);
    expect(await pending(caller)).toBe(MAX_PENDING_INVITATIONS - 1);

    expect((await invite(caller)).status).toBe(201);
    expectError(await invite(caller), 409, 'too_many_invitations');
  });
});
