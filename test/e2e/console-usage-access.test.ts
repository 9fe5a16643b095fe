import type { UsageHistory } from '../../lambda/core/usage-history';
import { ROLE_CACHE_MS } from '../../lambda/core/members';
import { consolePeople, newPerson } from '../support/console-people';
import { type ConsoleTestApi, expectError, startConsoleTestApi } from '../support/local-console';

/**
 * Who may read a project's usage history over HTTP (issue 29): any member of the project, and
 * no one else. A person's session acts for one project, so a non-member has no way to ask for
 * another's figures: naming the project in the query, switching the session to it, signing in to
 * it, and a session whose membership has ended are each refused, and no answer holds its figures.
 */
let t: ConsoleTestApi;
let people: ReturnType<typeof consolePeople>;

beforeAll(async () => {
  t = await startConsoleTestApi();
  people = consolePeople(t);
});

afterAll(async () => {
  people.close();
  await t.close();
});

/** `times` calls of the project's API with one of its keys: its usage. */
async function callApi(project: string, times: number): Promise<void> {
  const { apiKey } = await t.issueKey(project);
  for (let call = 0; call < times; call++) {
    const response = await fetch(`${t.apiBase}/pets`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(response.status).toBe(200);
  }
}

const admittedToday = (history: UsageHistory) => history.days.at(-1)?.admitted ?? {};

test("a member of one project never gets another's usage history", async () => {
  const acme = await t.createProject('pro');
  const globex = await t.createProject('pro');
  await callApi(acme.name, 2);
  await callApi(globex.name, 7);
  const outsider = newPerson('outsider');
  await people.add(acme.name, outsider, 'viewer');
  const caller = await people.signIn(outsider, acme.name);
  const asOutsider = (path: string, request: { method?: string; body?: unknown } = {}) =>
    t.call(path, {
      cookie: caller.cookie,
      ...(request.method && request.method !== 'GET'
        ? { method: request.method, origin: t.consoleOrigin, csrfToken: caller.csrfToken }
        : {}),
      ...(request.body === undefined ? {} : { body: request.body }),
    });

  // Their own project's figures: acme's 2 calls.
  const own = await asOutsider('/usage/history');
  expect(own.status).toBe(200);
  expect(admittedToday(own.body as unknown as UsageHistory)).toEqual({ listPets: 2 });

  // Naming the other project in the query is refused (the route takes no parameters).
  const named = await asOutsider(`/usage/history?project=${globex.name}`);
  expectError(named, 400, 'invalid_parameter');
  // Switching the session to it: not a member, whether or not it exists.
  expectError(
    await asOutsider('/session/project', { method: 'POST', body: { project: globex.name } }),
    404,
    'project_not_found',
  );
  // Signing in to it.
  expect(await people.startForPerson(outsider, globex.name)).toEqual({
    signedIn: false,
    failure: 'not_a_member',
  });
  // Acme's token says nothing of globex either.
  const byToken = await t.call(`/usage/history?project=${globex.name}`, { bearer: acme.consoleToken });
  expectError(byToken, 400, 'invalid_parameter');

  // Still acme's figures, and none of globex's 7 calls in any answer.
  const after = await asOutsider('/usage/history');
  expect(admittedToday(after.body as unknown as UsageHistory)).toEqual({ listPets: 2 });
  for (const answer of [named, byToken, after])
    expect(JSON.stringify(answer.body)).not.toContain(globex.name);
  expect(JSON.stringify(after.body)).not.toMatch(/"listPets":7/);
});

test('a person removed from a project is refused its usage history within 30 s, then signed out', async () => {
  const project = await t.createProject('pro');
  await callApi(project.name, 3);
  const owner = newPerson('owner');
  const leaver = newPerson('leaver');
  await people.add(project.name, owner, 'owner');
  await people.add(project.name, leaver, 'developer');
  const caller = await people.signIn(leaver, project.name);
  expect((await t.call('/usage/history', { cookie: caller.cookie })).status).toBe(200);

  await people.members.remove(project.name, leaver, 'platform');
  t.advance(ROLE_CACHE_MS);
  const refused = await t.call('/usage/history', { cookie: caller.cookie });
  expectError(refused, 401, 'membership_ended');
  expect(refused.body).not.toHaveProperty('days');
  expectError(await t.call('/usage/history', { cookie: caller.cookie }), 401, 'session_ended');
});
