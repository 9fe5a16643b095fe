import { Members } from '../../lambda/core/members';
import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { MemberRepository } from '../../lambda/store/member-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { DEV_OWNER, DEV_PROJECT, ensureDevOwner } from '../../local/dev-project';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { startTestStore, type TestStore } from '../support/embedded-store';

/** `dev-owner` of the local provider is an owner of `dev` at every start, whatever happened since. */

const ISSUER = 'http://localhost:3001/oidc';
let t: TestStore;

beforeAll(async () => {
  t = await startTestStore();
});
afterAll(() => t.close());

it('adds the development owner once, keeps them, and makes them owner again after a demotion', async () => {
  const projects = new ProjectRepository(t.documents, LOCAL_TABLE_NAMES.projects);
  const store = new MemberRepository(t.documents, LOCAL_TABLE_NAMES.projectMembers);
  const members = new Members({ store, owners: projects, projects, clock: () => 0 });
  const at = new Date(0).toISOString();
  await projects.create({
    name: DEV_PROJECT,
    plan: 'pro',
    createdAt: at,
    consoleTokenHash: issueConsoleToken(DEV_PROJECT).hash,
    consoleTokenIssuedAt: at,
    usageId: newUsageId(),
  });
  expect(await ensureDevOwner(members, ISSUER)).toBe('added');
  expect(await ensureDevOwner(members, ISSUER)).toBe('kept');
  const other = { issuer: ISSUER, subject: 'someone', email: 'someone@dev.animalstore.localhost' };
  await members.add(DEV_PROJECT, other, 'owner', 'platform');
  await members.setRole(DEV_PROJECT, { issuer: ISSUER, subject: DEV_OWNER.subject }, 'viewer', 'platform');
  expect(await ensureDevOwner(members, ISSUER)).toBe('restored');
  expect(await store.get(DEV_PROJECT, { issuer: ISSUER, subject: 'dev-owner' })).toMatchObject({
    role: 'owner',
    email: 'owner@dev.animalstore.localhost',
    name: 'Dev Owner',
  });
  expect((await projects.get(DEV_PROJECT))?.owners).toBe(2);
});
