import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { MemberRepository } from '../../lambda/store/member-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { Refusal, UsageError } from '../../tools/failures';
import { runMembersCommand } from '../../tools/members';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { withLocalTablesChecked } from '../../tools/local-store';

/** `npm run members` in process on the embedded store: the platform's way to recover a project. */

const ISSUER = 'https://issuer.example/pool';
let t: TestStore;
let projects: ProjectRepository;
let members: MemberRepository;
let count = 0;

beforeAll(async () => {
  t = await startTestStore();
  projects = new ProjectRepository(t.documents, LOCAL_TABLE_NAMES.projects);
  members = new MemberRepository(t.documents, LOCAL_TABLE_NAMES.projectMembers);
});
afterAll(() => t.close());

async function membersTool(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  // startTestStore made the store's tables: each command's check of them is left out.
  await withLocalTablesChecked([t.store.endpoint], () =>
    runMembersCommand(argv, { out: (line) => lines.push(line), endpoint: t.store.endpoint }),
  );
  return lines;
}

async function failure(run: Promise<unknown>): Promise<Error> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error('expected the command to fail');
  expect(error.message).not.toMatch(/\b\w*(Error|Exception)\b|\n\s+at /);
  return error;
}

async function newProject(): Promise<string> {
  const name = `m-tool-${(count += 1)}`;
  const { hash } = issueConsoleToken(name);
  const at = new Date().toISOString();
  await projects.create({
    name,
    plan: 'pro',
    createdAt: at,
    consoleTokenHash: hash,
    consoleTokenIssuedAt: at,
    usageId: newUsageId(),
  });
  return name;
}

const person = (subject: string) => ['--issuer', ISSUER, '--subject', subject];

describe('npm run members', () => {
  it('prints its usage with --help, and refuses a wrong invocation as one (exit 2)', async () => {
    const help = await membersTool('--help');
    expect(help.join('\n')).toMatch(
      /npm run members -- [\s\S]*list[\s\S]*set-role[\s\S]*owner, admin, developer, viewer/,
    );
    await expect(membersTool('add', '--project', 'x', '--role', 'owner')).rejects.toBeInstanceOf(UsageError);
    await expect(
      membersTool('add', '--project', 'x', ...person('s'), '--email', 'a@b.example', '--role', 'king'),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(membersTool('frobnicate')).rejects.toBeInstanceOf(UsageError);
    await expect(membersTool('list', '--project', 'x', '--stage', 'moon')).rejects.toBeInstanceOf(UsageError);
    const project = await newProject();
    const bad = await failure(
      membersTool(
        'add',
        '--project',
        project,
        '--issuer',
        'not a url',
        '--subject',
        's',
        '--email',
        'a@b.c',
        '--role',
        'viewer',
      ),
    );
    expect(bad).toBeInstanceOf(UsageError);
  });

  it('adds, lists, changes and removes members, as the platform', async () => {
    const project = await newProject();
    expect(await membersTool('list', '--project', project)).toEqual([
      `Project ${project} has no members: its console token opens its console.`,
      expect.stringContaining(`npm run members -- add --project ${project} --role owner`),
    ]);
    await membersTool(
      'add',
      '--project',
      project,
      ...person('ana'),
      '--email',
      'ana@acme.example',
      '--name',
      'Ana',
      '--role',
      'owner',
    );
    await membersTool(
      'add',
      '--project',
      project,
      ...person('bo'),
      '--email',
      'bo@acme.example',
      '--role',
      'viewer',
    );
    expect(await membersTool('list', '--project', project)).toEqual([
      `owner      Ana <ana@acme.example>  (${ISSUER} ana)`,
      `viewer     bo@acme.example  (${ISSUER} bo)`,
    ]);
    const [changed] = await membersTool(
      'set-role',
      '--project',
      project,
      ...person('bo'),
      '--role',
      'developer',
      '--json',
    );
    expect(JSON.parse(changed ?? '')).toMatchObject({ subject: 'bo', role: 'developer' });
    await membersTool('remove', '--project', project, ...person('bo'));
    expect(await members.listOf(project)).toEqual([
      expect.objectContaining({ subject: 'ana', role: 'owner' }),
    ]);
    expect((await projects.get(project))?.owners).toBe(1);
  });

  it('recovers a project by adding an owner, and never removes or demotes the last one', async () => {
    const project = await newProject();
    await membersTool(
      'add',
      '--project',
      project,
      ...person('gone'),
      '--email',
      'gone@acme.example',
      '--role',
      'owner',
    );
    const refused = await failure(membersTool('remove', '--project', project, ...person('gone')));
    expect(refused).toBeInstanceOf(Refusal);
    expect(refused.message).toMatch(/last owner of/);
    await expect(
      membersTool('set-role', '--project', project, ...person('gone'), '--role', 'viewer'),
    ).rejects.toBeInstanceOf(Refusal);
    await membersTool(
      'add',
      '--project',
      project,
      ...person('new'),
      '--email',
      'new@acme.example',
      '--role',
      'owner',
    );
    await membersTool('remove', '--project', project, ...person('gone'));
    expect(await members.listOf(project)).toEqual([
      expect.objectContaining({ subject: 'new', role: 'owner' }),
    ]);
  });

  it('keeps the last owner when two tools remove both owners at the same moment', async () => {
    for (let round = 0; round < 5; round += 1) {
      const project = await newProject();
      for (const subject of ['a', 'b']) {
        await membersTool(
          'add',
          '--project',
          project,
          ...person(subject),
          '--email',
          `${subject}@x.example`,
          '--role',
          'owner',
        );
      }
      const outcomes = await Promise.allSettled(
        ['a', 'b'].map((subject) => membersTool('remove', '--project', project, ...person(subject))),
      );
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(await members.listOf(project)).toHaveLength(1);
      expect((await projects.get(project))?.owners).toBe(1);
    }
  });

  it('refuses a project that does not exist, and a person who is a member already', async () => {
    await expect(
      membersTool(
        'add',
        '--project',
        'no-such-project',
        ...person('x'),
        '--email',
        'x@x.example',
        '--role',
        'owner',
      ),
    ).rejects.toBeInstanceOf(Refusal);
    await expect(membersTool('list', '--project', 'no-such-project')).rejects.toBeInstanceOf(Refusal);
    const project = await newProject();
    await membersTool(
      'add',
      '--project',
      project,
      ...person('x'),
      '--email',
      'x@x.example',
      '--role',
      'viewer',
    );
    const again = await failure(
      membersTool('add', '--project', project, ...person('x'), '--email', 'x@x.example', '--role', 'owner'),
    );
    expect(again.message).toMatch(/member of .* already/);
  });
});
