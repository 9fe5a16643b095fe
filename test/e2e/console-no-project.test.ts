import { CONSOLE_ROUTES } from '../../lambda/api/console-routes';
import {
  type CallAs,
  type ConsolePeople,
  type ConsoleWithPeople,
  startConsoleWithPeople,
} from '../support/console-callers';
import { newPerson } from '../support/console-people';
import { type ConsoleTestApi, expectError } from '../support/local-console';

/**
 * A signed-in person of no project (issue 27) at every route of a project's, over HTTP against
 * local mode's console: each kind (keys, domains, usage, members, invitations, tokens, the audit
 * log) is refused 403 `no_project_yet`, and nothing is made; the session's own routes answer, and
 * a switch to another's project is not found. (Self-service turned off: console-start-alone.test.ts.)
 */

let opened: ConsoleWithPeople;
let t: ConsoleTestApi;
let people: ConsolePeople;
let as: CallAs;

beforeAll(async () => {
  opened = await startConsoleWithPeople();
  ({ t, people, as } = opened);
});

afterAll(() => opened?.close());

/** A plausible body for each route that takes one: the refusal must come before it is read. */
const BODIES: Record<string, unknown> = {
  createKey: { name: 'ci' },
  addDomain: { name: 'shop.example.com' },
  addMember: { email: 'someone@people.test', role: 'developer' },
  setMemberRole: { role: 'viewer' },
  createInvitation: { email: 'someone@people.test', role: 'developer' },
  createToken: { name: 'ci', role: 'viewer', expiresInDays: 30 },
};

/** The routes of a project's: every route but the session's own, the sign-in's and self-service. */
const PROJECT_ROUTES = CONSOLE_ROUTES.filter(
  (route) =>
    (route.access ?? 'signed-in') === 'signed-in' &&
    route.operationId !== 'createProject' &&
    route.operationId !== 'openInvitation',
);

describe('a person of no project', () => {
  it('covers every kind of a project’s route', () => {
    const kinds = new Set(PROJECT_ROUTES.map((route) => route.path.split('/')[1]));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(['audit', 'domains', 'invitations', 'keys', 'members', 'tokens', 'usage']),
    );
  });

  it.each(PROJECT_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    'is refused 403 no_project_yet at %s',
    async (_, route) => {
      const caller = await people.signIn(newPerson('nowhere'));
      const path = route.path.replace(/\{[^}]+\}/g, 'x0000000000000000');
      expectError(await as(caller, route.method, path, BODIES[route.operationId]), 403, 'no_project_yet');
    },
  );

  it('makes nothing by trying: no invitation mailed, and its session still in no project', async () => {
    const caller = await people.signIn(newPerson('nowhere'));
    const before = t.api.outbox.messages().length;
    await as(caller, 'POST', '/invitations', BODIES.createInvitation);
    await as(caller, 'POST', '/keys', BODIES.createKey);
    await as(caller, 'POST', '/tokens', BODIES.createToken);
    expect(t.api.outbox.messages()).toHaveLength(before);
    const session = await as(caller, 'GET', '/session');
    expect(session.status).toBe(200);
    expect(session.body.project).toBeUndefined();
  });

  it("cannot switch its session to another's project: not found, and the session stays in none", async () => {
    const { name } = await t.createProject('pro');
    const caller = await people.signIn(newPerson('nowhere'));
    expectError(await as(caller, 'POST', '/session/project', { project: name }), 404, 'project_not_found');
    expect((await as(caller, 'GET', '/session')).body.project).toBeUndefined();
    expectError(await as(caller, 'GET', '/keys'), 403, 'no_project_yet');
  });
});
