import { MAX_LIVE_TOKENS_PER_MEMBER } from '../../lambda/core/personal-token-views';
import { type CallAs, type ConsoleWithPeople, startConsoleWithPeople } from '../support/console-callers';
import { type ConsoleAnswer, type ConsoleTestApi, expectError } from '../support/local-console';

/**
 * Personal access tokens' refusals over HTTP against local mode's console (issue 28), the ones
 * test/e2e/console-tokens.test.ts leaves: a list of an unknown scope, everyone's tokens asked by
 * a member without `manageTokens`, and the cap of live tokens a member may hold.
 */

let opened: ConsoleWithPeople;
let t: ConsoleTestApi;
let as: CallAs;
let memberOf: ConsoleWithPeople['memberOf'];

beforeAll(async () => {
  opened = await startConsoleWithPeople();
  ({ t, as, memberOf } = opened);
});

afterAll(() => opened?.close());

const tokenIds = (answer: ConsoleAnswer) =>
  (answer.body.tokens as { tokenId: string }[]).map((token) => token.tokenId).sort();

describe('listing tokens', () => {
  it('refuses a scope it does not know, 400 naming the parameter', async () => {
    const { name } = await t.createProject('business');
    const owner = await memberOf(name, 'owner');
    const answer = await as(owner, 'GET', '/tokens?scope=everyone');
    expectError(answer, 400, 'invalid_parameter');
    expect(answer.body.message).toContain('scope');
  });

  it("shows a project's every token to an owner only: a developer asking is refused 403", async () => {
    const { name } = await t.createProject('business');
    const owner = await memberOf(name, 'owner');
    const developer = await memberOf(name, 'developer');
    const body = { name: 'ci', role: 'viewer', expiresInDays: 30 };
    const mine = await as(developer, 'POST', '/tokens', body);
    const theirs = await as(owner, 'POST', '/tokens', body);
    expect([mine.status, theirs.status]).toEqual([201, 201]);

    expectError(await as(developer, 'GET', '/tokens?scope=project'), 403, 'action_not_permitted');
    const ownTokens = await as(developer, 'GET', '/tokens?scope=own');
    expect(tokenIds(ownTokens)).toEqual([(mine.body.personalToken as { tokenId: string }).tokenId]);
    const everyone = await as(owner, 'GET', '/tokens?scope=project');
    expect(tokenIds(everyone)).toEqual(
      [mine, theirs].map((made) => (made.body.personalToken as { tokenId: string }).tokenId).sort(),
    );
  });
});

describe('the cap of live tokens', () => {
  it(`refuses a member's token past ${MAX_LIVE_TOKENS_PER_MEMBER} and keeps none of it; a revoke makes room`, async () => {
    const { name } = await t.createProject('business');
    const developer = await memberOf(name, 'developer');
    const other = await memberOf(name, 'developer');
    const body = { name: 'ci', role: 'viewer', expiresInDays: 30 };
    const made: string[] = [];
    for (let count = 0; count < MAX_LIVE_TOKENS_PER_MEMBER; count += 1) {
      const answer = await as(developer, 'POST', '/tokens', body);
      expect(answer.status).toBe(201);
      made.push((answer.body.personalToken as { tokenId: string }).tokenId);
    }
    expectError(await as(developer, 'POST', '/tokens', body), 409, 'too_many_tokens');
    expect(tokenIds(await as(developer, 'GET', '/tokens'))).toEqual([...made].sort());
    // The cap is each member's: another member of the project still makes one.
    expect((await as(other, 'POST', '/tokens', body)).status).toBe(201);

    expect((await as(developer, 'DELETE', `/tokens/${made[0]}`)).status).toBe(200);
    expect((await as(developer, 'POST', '/tokens', body)).status).toBe(201);
  });
});
