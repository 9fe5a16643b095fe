import { SESSION_COOKIE_NAME } from '../../lambda/api/console-cookies';
import type { Role } from '../../lambda/core/permissions';
import { CONSOLE_TOKEN_VARIABLE, PERSONAL_TOKEN_VARIABLE, runDomainsCommand } from '../../tools/domains';
import { Refusal } from '../../tools/failures';
import { consolePeople, newPerson } from '../support/console-people';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/**
 * `npm run domains` with a member's personal access token (issue 28): it acts for the token's
 * project with the token's role, is refused once the token is revoked, and wins over the
 * console token, which opens a project only until its first owner.
 */

let t: DomainsTestApi;
let people: ReturnType<typeof consolePeople>;
let lines: string[];

beforeAll(async () => {
  t = await startDomainsTestApi();
  people = consolePeople({ api: t.api, now: Date.now });
});

afterAll(async () => {
  people.close();
  await t.close();
});

function run(env: Record<string, string>, ...argv: string[]): Promise<number> {
  lines = [];
  return runDomainsCommand(argv, { out: (line) => lines.push(line), env, localApiUrl: t.origin });
}

/** A project with an owner, and a member of `role` with a token of that role, made in the console. */
async function memberWithToken(role: Role) {
  const project = await t.createProject('pro');
  const owner = newPerson('owner');
  const member = newPerson(role);
  await people.add(project.name, owner, 'owner');
  await people.add(project.name, member, role);
  const session = await people.signIn(member, project.name);
  const origin = `http://localhost:${t.api.port}`;
  const created = await fetch(`${t.origin}/console/api/tokens`, {
    method: 'POST',
    headers: {
      Cookie: `${SESSION_COOKIE_NAME}=${session.cookie}`,
      Origin: origin,
      'X-CSRF-Token': session.csrfToken,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ name: 'domains tool', role, expiresInDays: 30 }),
  });
  const body = (await created.json()) as { token: string; personalToken: { tokenId: string } };
  if (created.status !== 201) throw new Error(`createToken: ${created.status} ${JSON.stringify(body)}`);
  const ownerSession = await people.signIn(owner, project.name);
  return {
    ...project,
    owner,
    member,
    ownerSession,
    origin,
    token: body.token,
    tokenId: body.personalToken.tokenId,
  };
}

it("adds a domain with an admin's token, and is refused once the owner revokes it", async () => {
  const p = await memberWithToken('admin');
  expect(await run({ [PERSONAL_TOKEN_VARIABLE]: p.token }, 'add', 'shop.pat-tool.test')).toBe(0);
  expect(lines[0]).toBe('Added shop.pat-tool.test as primary; state: pending DNS.');
  expect(await run({ [PERSONAL_TOKEN_VARIABLE]: p.token }, 'status', '--json')).toBe(0);
  expect(JSON.parse(lines[0] ?? '')).toEqual([expect.objectContaining({ domain: 'shop.pat-tool.test' })]);

  const revoked = await fetch(`${t.origin}/console/api/tokens/${p.tokenId}`, {
    method: 'DELETE',
    headers: {
      Cookie: `${SESSION_COOKIE_NAME}=${p.ownerSession.cookie}`,
      Origin: p.origin,
      'X-CSRF-Token': p.ownerSession.csrfToken,
    },
  });
  expect(revoked.status).toBe(200);
  const refused = run({ [PERSONAL_TOKEN_VARIABLE]: p.token }, 'add', 'again.pat-tool.test');
  await expect(refused).rejects.toThrow(Refusal);
  await expect(run({ [PERSONAL_TOKEN_VARIABLE]: p.token }, 'status')).rejects.toThrow(
    /^The personal access token was revoked: .* Check ANIMAL_STORE_TOKEN/,
  );
});

it("is refused what its role may not: a developer's token adds a domain, and removes none", async () => {
  const p = await memberWithToken('developer');
  expect(await run({ [PERSONAL_TOKEN_VARIABLE]: p.token }, 'add', 'dev.pat-tool.test')).toBe(0);
  await expect(
    run({ [PERSONAL_TOKEN_VARIABLE]: p.token }, 'remove', 'dev.pat-tool.test', '--yes'),
  ).rejects.toThrow(/may not do this \(removeDomains\)/);
  expect(await run({ [PERSONAL_TOKEN_VARIABLE]: p.token }, 'status', '--json')).toBe(0);
  expect(JSON.parse(lines[0] ?? '')).toEqual([expect.objectContaining({ domain: 'dev.pat-tool.test' })]);
});

it("wins over the console token, which works until the project's first owner only", async () => {
  const alone = await t.createProject('pro');
  expect(await run({ [CONSOLE_TOKEN_VARIABLE]: alone.consoleToken }, 'status', '--json')).toBe(0);
  const p = await memberWithToken('admin');
  await expect(run({ [CONSOLE_TOKEN_VARIABLE]: p.consoleToken }, 'status')).rejects.toThrow(
    /no longer opens its console/,
  );
  const both = { [CONSOLE_TOKEN_VARIABLE]: p.consoleToken, [PERSONAL_TOKEN_VARIABLE]: p.token };
  expect(await run(both, 'status', '--json')).toBe(0);
});
