import { randomBytes } from 'node:crypto';
import { ApiError } from '../../../lambda/api/errors';
import type { ConsoleSessions } from '../../../lambda/core/console-session';
import { type MemberRecord, Members, memberId, type PersonRef } from '../../../lambda/core/members';
import { issueConsoleToken, newUsageId, type ProjectRecord } from '../../../lambda/core/project';
import type { Role } from '../../../lambda/core/permissions';
import type { ConsoleEvent } from '../../../lambda/middleware/console-handler';
import { memberOperations } from '../../../lambda/operations/console-members';
import { MemberRepository } from '../../../lambda/store/member-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { newPerson } from '../../support/console-people';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The console's member operations when another request wins the race between reading a member
 * and changing them: the loser answers 409 `member_changed`, the winner's change stands, and the
 * count of owners stays the true number. Over the real store; the other request lands, through
 * the same member rules, exactly between the operation's read and its conditional write (an
 * interleaving two HTTP calls give only by chance).
 */

let store: TestStore;
let projects: ProjectRepository;
let repository: MemberRepository;

beforeAll(async () => {
  store = await startTestStore();
  projects = new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects);
  repository = new MemberRepository(store.documents, LOCAL_TABLE_NAMES.projectMembers);
});

afterAll(() => store.close());

const clock = () => Date.parse('2031-03-04T05:06:00.000Z');
const platform = () => new Members({ store: repository, owners: projects, projects, clock });

async function newProject(): Promise<ProjectRecord> {
  const name = `m-${randomBytes(4).toString('hex')}`;
  const at = new Date(clock()).toISOString();
  const record = {
    name,
    plan: 'business' as const,
    createdAt: at,
    consoleTokenHash: issueConsoleToken(name).hash,
    consoleTokenIssuedAt: at,
    usageId: newUsageId(),
  };
  await projects.create(record);
  return record;
}

/** The operations over a member store whose next read of `target` lets `other` land first. */
function racedOperations(target: PersonRef, other: () => Promise<unknown>) {
  let raced = false;
  const racing: MemberRepository = Object.create(repository) as MemberRepository;
  racing.get = async (project, person) => {
    const read = await repository.get(project, person);
    if (!raced && person.subject === target.subject) {
      raced = true;
      await other();
    }
    return read;
  };
  const members = new Members({ store: racing, owners: projects, projects, clock });
  return memberOperations(members, {} as ConsoleSessions);
}

function event<Body>(project: ProjectRecord, actor: MemberRecord, target: PersonRef, jsonBody: Body) {
  return {
    project,
    role: actor.role,
    session: { record: { person: actor } },
    pathParameters: { memberId: memberId(target) },
    query: {},
    jsonBody,
  } as unknown as ConsoleEvent<Body>;
}

async function refusalOf(call: Promise<unknown>): Promise<{ code: string; status: number }> {
  const error = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ApiError);
  const { code, status } = error as ApiError;
  return { code, status };
}

async function teamOf(project: ProjectRecord, roles: readonly Role[]): Promise<MemberRecord[]> {
  const team: MemberRecord[] = [];
  for (const role of roles) team.push(await platform().add(project.name, newPerson(role), role, 'platform'));
  return team;
}

test("a role change that loses the race is 409 member_changed, and the winner's role stands", async () => {
  const project = await newProject();
  const [owner, target] = (await teamOf(project, ['owner', 'viewer'])) as [MemberRecord, MemberRecord];
  const operations = racedOperations(target, () =>
    platform().setRole(project.name, target, 'admin', 'platform'),
  );
  expect(
    await refusalOf(operations.setMemberRole(event(project, owner, target, { role: 'developer' }))),
  ).toEqual({ code: 'member_changed', status: 409 });
  expect((await repository.get(project.name, target))?.role).toBe('admin');
});

test('a removal of an owner that loses the race puts the owner it uncounted back', async () => {
  const project = await newProject();
  const [owner, target] = (await teamOf(project, ['owner', 'owner', 'owner'])) as [
    MemberRecord,
    MemberRecord,
  ];
  expect((await projects.get(project.name))?.owners).toBe(3);
  const operations = racedOperations(target, () =>
    platform().setRole(project.name, target, 'admin', 'platform'),
  );
  expect(await refusalOf(operations.removeMember(event(project, owner, target, {})))).toEqual({
    code: 'member_changed',
    status: 409,
  });
  expect((await repository.get(project.name, target))?.role).toBe('admin');
  const owners = (await repository.listOf(project.name)).filter((member) => member.role === 'owner');
  expect(owners).toHaveLength(2);
  expect((await projects.get(project.name))?.owners).toBe(2);
});

test('a demotion of an owner that loses the race to a removal leaves the count at the owners there are', async () => {
  const project = await newProject();
  const [owner, target] = (await teamOf(project, ['owner', 'owner', 'owner'])) as [
    MemberRecord,
    MemberRecord,
  ];
  const operations = racedOperations(target, () => platform().remove(project.name, target, 'platform'));
  expect(
    await refusalOf(operations.setMemberRole(event(project, owner, target, { role: 'viewer' }))),
  ).toEqual({ code: 'member_changed', status: 409 });
  expect(await repository.get(project.name, target)).toBeUndefined();
  expect((await projects.get(project.name))?.owners).toBe(2);
});
