import { Invitations, InvitationRefusal } from '../../lambda/core/invitations';
import { Members } from '../../lambda/core/members';
import { InvitationRepository } from '../../lambda/store/invitation-repository';
import { MemberRepository } from '../../lambda/store/member-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { localOutbox } from '../../local/invitation-outbox';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { runProjectsCommand } from '../../tools/projects';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { withLocalTablesChecked } from '../../tools/local-store';

/**
 * `npm run projects -- delete` removes the project's invitations and their counter of places
 * (issue 27), on the embedded store: a later project of the same name starts with no place
 * taken, and no link of the deleted one joins it; another project's are untouched.
 */

let t: TestStore;
let repository: InvitationRepository;
let invitations: Invitations;

beforeAll(async () => {
  t = await startTestStore();
  repository = new InvitationRepository(t.documents, LOCAL_TABLE_NAMES.invitations);
  const projects = new ProjectRepository(t.documents, LOCAL_TABLE_NAMES.projects);
  const store = new MemberRepository(t.documents, LOCAL_TABLE_NAMES.projectMembers);
  invitations = new Invitations({
    store: repository,
    members: new Members({ store, owners: projects, projects, clock: Date.now }),
    projects,
    mailer: localOutbox(),
    linkOf: (token) => token,
    vouched: () => [],
    clock: Date.now,
  });
});
afterAll(() => t.close());

async function projectsTool(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  // startTestStore made the store's tables: each command's check of them is left out.
  await withLocalTablesChecked([t.store.endpoint], () =>
    runProjectsCommand(argv, { out: (line) => lines.push(line), endpoint: t.store.endpoint, env: {} }),
  );
  return lines;
}

const owner = { role: 'owner' as const, ref: 'console-token' as const };

test("deleting a project removes its invitations and its counter of places, and no other project's", async () => {
  await projectsTool('create', 'inv-gone');
  await projectsTool('create', 'inv-kept');
  const sent = await Promise.all(
    ['a', 'b', 'c'].map((who) => invitations.send('inv-gone', `${who}@people.test`, 'developer', owner)),
  );
  await invitations.revoke('inv-gone', sent[0]?.record.invitationId ?? '');
  const kept = await invitations.send('inv-kept', 'd@people.test', 'viewer', owner);
  expect(await repository.placesTaken('inv-gone')).toBe(2);

  expect(await projectsTool('delete', 'inv-gone', '--yes')).toEqual([
    'Deleted project inv-gone.',
    'Removed its 3 invitations.',
  ]);
  expect(await repository.listOf('inv-gone')).toEqual([]);
  expect(await repository.placesTaken('inv-gone')).toBe(0);
  expect(await repository.listOf('inv-kept')).toEqual([expect.objectContaining({ email: 'd@people.test' })]);
  expect(await repository.placesTaken('inv-kept')).toBe(1);

  // A project of the same name made later: no place taken, and the old links join nothing.
  await projectsTool('create', 'inv-gone');
  const link = sent[1]?.link ?? '';
  await expect(invitations.open(link)).rejects.toEqual(expect.any(InvitationRefusal));
  await expect(invitations.open(link)).rejects.toMatchObject({ kind: 'invitation_not_found' });
  await invitations.send('inv-gone', 'e@people.test', 'viewer', owner);
  expect(await repository.placesTaken('inv-gone')).toBe(1);
  expect((await invitations.open(kept.link)).project).toBe('inv-kept');
});
