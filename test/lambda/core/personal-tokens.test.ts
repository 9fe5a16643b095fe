import { MemberRoles, Members } from '../../../lambda/core/members';
import { MAX_LIVE_TOKENS_PER_MEMBER, rolesUpTo } from '../../../lambda/core/personal-token-views';
import {
  parsePersonalToken,
  PersonalTokenRefusal,
  PersonalTokens,
} from '../../../lambda/core/personal-tokens';
import { issueConsoleToken, newUsageId } from '../../../lambda/core/project';
import { MemberRepository } from '../../../lambda/store/member-repository';
import { PersonalTokenRepository } from '../../../lambda/store/personal-token-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The personal access token rules over the embedded store (issue 28): the cap under concurrent
 * creations, a removal through the member rules revoking the member's tokens, and a member's
 * tokens told apart from another's whose subject starts alike.
 */

const NOW = Date.UTC(2026, 10, 26, 8, 0, 0);
const ISSUER = 'https://issuer.test';

let store: TestStore;
let tokens: PersonalTokens;
let members: Members;
let projectCount = 0;

beforeAll(async () => {
  store = await startTestStore();
  const projects = new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects);
  const memberStore = new MemberRepository(store.documents, LOCAL_TABLE_NAMES.projectMembers);
  const roles = new MemberRoles(memberStore, () => NOW);
  tokens = new PersonalTokens({
    store: new PersonalTokenRepository(store.documents, LOCAL_TABLE_NAMES.personalTokens),
    projects,
    roles,
    clock: () => NOW,
  });
  members = new Members({ store: memberStore, owners: projects, projects, clock: () => NOW, roles, tokens });
});
afterAll(() => store.close());

async function projectWith(...subjects: string[]): Promise<string> {
  const name = `tok-${(projectCount += 1)}`;
  const at = new Date(NOW).toISOString();
  await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).create({
    name,
    plan: 'pro',
    createdAt: at,
    consoleTokenHash: issueConsoleToken(name).hash,
    consoleTokenIssuedAt: at,
    usageId: newUsageId(),
  });
  for (const subject of subjects) {
    await members.add(name, { issuer: ISSUER, subject, email: `${subject}@x.test` }, 'developer', 'platform');
  }
  return name;
}

const holder = (subject: string) => ({
  issuer: ISSUER,
  subject,
  email: `${subject}@x.test`,
  role: 'developer' as const,
});
const request = { name: 'ci', role: 'developer' as const, expiresInDays: 30 };

it('parses only its own shape', () => {
  const secret = 'A'.repeat(43);
  const id = 'a'.repeat(32);
  expect(parsePersonalToken(`pat_${id}_${secret}`)).toEqual({ tokenId: id, secret });
  for (const text of [
    `pct_${id}_${secret}`,
    `pat_${id}${secret}`,
    `pat_${id.toUpperCase()}_${secret}`,
    `pat_${id}_${secret}x`,
    'pat_',
  ]) {
    expect(parsePersonalToken(text)).toBeUndefined();
  }
  expect(rolesUpTo('admin')).toEqual(['admin', 'developer', 'viewer']);
});

it(`never leaves a member more than ${MAX_LIVE_TOKENS_PER_MEMBER} live tokens, however many are made at once`, async () => {
  const project = await projectWith('busy');
  const results = await Promise.allSettled(
    Array.from({ length: MAX_LIVE_TOKENS_PER_MEMBER + 5 }, () =>
      tokens.create(project, holder('busy'), request),
    ),
  );
  const refused = results.filter((result) => result.status === 'rejected');
  for (const result of refused) {
    expect((result as PromiseRejectedResult).reason).toBeInstanceOf(PersonalTokenRefusal);
  }
  expect(refused.length).toBeGreaterThanOrEqual(5);
  expect((await tokens.listOf(project, holder('busy'))).length).toBeLessThanOrEqual(
    MAX_LIVE_TOKENS_PER_MEMBER,
  );
});

it("counts only the member's own tokens against the cap, not those of a subject that starts alike", async () => {
  const project = await projectWith('z', 'z#y');
  for (let made = 0; made < MAX_LIVE_TOKENS_PER_MEMBER; made += 1) {
    await tokens.create(project, holder('z#y'), request);
  }
  await expect(tokens.create(project, holder('z#y'), request)).rejects.toMatchObject({
    kind: 'too_many_tokens',
  });
  const mine = await tokens.create(project, holder('z'), request);
  expect((await tokens.listOf(project, holder('z'))).map((record) => record.tokenId)).toEqual([
    mine.record.tokenId,
  ]);
});

it("tells a member's tokens from another's whose subject starts alike, and revokes them with the removal", async () => {
  const project = await projectWith('x', 'x#y');
  const mine = await tokens.create(project, holder('x'), request);
  const theirs = await tokens.create(project, holder('x#y'), request);
  expect((await tokens.listOf(project, holder('x'))).map((record) => record.tokenId)).toEqual([
    mine.record.tokenId,
  ]);
  expect((await tokens.authenticate(mine.token)).granted).toBe(true);

  await members.remove(project, holder('x'), 'platform');
  expect(await tokens.authenticate(mine.token)).toEqual({
    granted: false,
    failure: 'personal_token_revoked',
  });
  expect((await tokens.authenticate(theirs.token)).granted).toBe(true);
});
