import { type MemberRecord, MemberRefusal, Members, memberId } from '../lambda/core/members';
import { isRole, ROLES, type Role } from '../lambda/core/permissions';
import { MemberRepository } from '../lambda/store/member-repository';
import { ProjectRepository } from '../lambda/store/project-repository';
import { STACK_OUTPUTS } from '../lib/animal-store-stack';
import { ENVIRONMENT_NAMES } from '../lib/config/environments';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { withAuditTrail } from './audit-trail';
import { parseCommandLine, runToolMain, type ToolSpec } from './cli';
import { Refusal, UsageError } from './failures';
import { inOneCommand, localStoreHelp, openLocalTables, toolStoreEndpoint } from './local-store';
import { connectStageTable, parseStage, type StageClients } from './stage';

/**
 * `npm run members`: a platform engineer's view of a project's members (issue 26), on the local
 * store or a deployed stage. It acts as the platform, with every right, and through the same
 * member rules as the console: the last owner stays one, so a project whose owners are gone is
 * recovered by adding one, never by removing the last.
 */

const OPTIONS = {
  project: { type: 'string', value: 'NAME', description: 'The project.' },
  subject: {
    type: 'string',
    value: 'SUB',
    description: "The person's subject at their provider (the ID token's `sub`).",
  },
  issuer: {
    type: 'string',
    value: 'URL',
    description: [
      "The person's provider (the ID token's `iss`): the Cognito user pool's issuer in AWS,",
      "the local provider's issuer URL that npm start prints in local mode.",
    ].join('\n'),
  },
  email: { type: 'string', value: 'ADDRESS', description: "The person's email, as shown." },
  name: { type: 'string', value: 'TEXT', description: "The person's name, as shown." },
  role: { type: 'string', value: 'ROLE', description: `The role: ${ROLES.join(', ')}.` },
  json: { type: 'boolean', description: 'Print JSON instead of text.' },
  stage: {
    type: 'string',
    value: 'NAME',
    description: [
      `Act on a deployed environment (${ENVIRONMENT_NAMES.join(', ')}): its tables from the stack`,
      "outputs, with the AWS credentials and region of the SDK's default chain. Without it, act",
      'on the local store.',
    ].join('\n'),
  },
} as const;

/** The members tool, declared once: usage, parsing and checks come from it. */
export const MEMBERS_TOOL: ToolSpec<typeof OPTIONS> = {
  name: 'members',
  options: OPTIONS,
  global: ['stage', 'project'],
  commands: [
    {
      name: 'list',
      options: ['json'],
      required: ['project'],
      summary: "List the project's members: role, email, name, issuer and subject.",
    },
    {
      name: 'add',
      options: ['subject', 'issuer', 'email', 'name', 'role', 'json'],
      required: ['project', 'subject', 'issuer', 'email', 'role'],
      audit: 'member.add',
      summary: [
        "Add a person as a member. The first owner retires the project's console token",
        '(doc/console.md#members-and-roles).',
      ].join('\n'),
    },
    {
      name: 'set-role',
      options: ['subject', 'issuer', 'role', 'json'],
      required: ['project', 'subject', 'issuer', 'role'],
      audit: 'member.role',
      summary: "Change a member's role; the last owner stays one.",
    },
    {
      name: 'remove',
      options: ['subject', 'issuer', 'json'],
      required: ['project', 'subject', 'issuer'],
      audit: 'member.remove',
      summary: 'Remove a member (their sessions end within 30 s); the last owner stays.',
    },
  ],
  epilogue: `Roles: ${ROLES.join(', ')} (the permission table: doc/console.md#members-and-roles).

${localStoreHelp([
  { variable: 'PROJECTS_TABLE_NAME', what: `Projects table (default ${LOCAL_TABLE_NAMES.projects}).` },
  {
    variable: 'PROJECT_MEMBERS_TABLE_NAME',
    what: `Members table (default ${LOCAL_TABLE_NAMES.projectMembers}).`,
  },
])}

Exit codes: 0 done; 2 wrong invocation; 1 failed or refused (the message says why).`,
};

export interface MembersCommandIo {
  readonly out: (line: string) => void;
  /** The local store; by default where npm start runs it (DYNAMODB_PORT, DYNAMODB_ENDPOINT). */
  readonly endpoint?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** AWS clients to use with --stage instead of the default ones (tests). */
  readonly stageClients?: StageClients;
  /** The clock of `addedAt` (tests). @default the wall clock */
  readonly clock?: () => number;
}

function parseRole(value: string | undefined): Role {
  if (!isRole(value)) {
    throw new UsageError(`Unknown role ${JSON.stringify(value)}: use one of ${ROLES.join(', ')}.`);
  }
  return value;
}

function memberLine(member: MemberRecord): string {
  const shown = member.name ? `${member.name} <${member.email}>` : member.email;
  return `${member.role.padEnd(9)}  ${shown}  (${member.issuer} ${member.subject})`;
}

/** The members and projects tables: the local store's, or a stage's from its stack outputs. */
async function connect(stageName: string | undefined, io: MembersCommandIo) {
  if (stageName !== undefined) {
    const stage = parseStage(stageName);
    const members = await connectStageTable(stage, STACK_OUTPUTS.projectMembersTable, io.stageClients);
    try {
      const projects = await connectStageTable(stage, STACK_OUTPUTS.projectsTable, io.stageClients);
      return {
        store: new MemberRepository(members.documents, members.tableName),
        projects: new ProjectRepository(projects.documents, projects.tableName),
        close: () => {
          projects.close();
          members.close();
        },
      };
    } catch (error) {
      members.close();
      throw error;
    }
  }
  const env = io.env ?? process.env;
  const names = {
    projects: env.PROJECTS_TABLE_NAME || LOCAL_TABLE_NAMES.projects,
    members: env.PROJECT_MEMBERS_TABLE_NAME || LOCAL_TABLE_NAMES.projectMembers,
  };
  const documents = await openLocalTables(io.endpoint ?? toolStoreEndpoint(env), [
    { tableName: names.projects, variable: 'PROJECTS_TABLE_NAME' },
    { tableName: names.members, variable: 'PROJECT_MEMBERS_TABLE_NAME' },
  ]);
  return {
    store: new MemberRepository(documents, names.members),
    projects: new ProjectRepository(documents, names.projects),
    close: () => documents.destroy(),
  };
}

/** Runs one members command against the local store at `io.endpoint`, or against `--stage`. */
export function runMembersCommand(argv: readonly string[], io: MembersCommandIo): Promise<void> {
  // Its connection and its audit entry's make sure of the local tables once between them.
  return inOneCommand(() => membersCommand(argv, io));
}

async function membersCommand(argv: readonly string[], io: MembersCommandIo): Promise<void> {
  const line = parseCommandLine(MEMBERS_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return;
  }
  const { command, values } = line;
  const project = values.project ?? '';
  const person = { issuer: values.issuer ?? '', subject: values.subject ?? '' };
  // Every usage check comes before any connection, so a typo costs no AWS call.
  const role = command === 'add' || command === 'set-role' ? parseRole(values.role) : undefined;
  if (values.stage !== undefined) parseStage(values.stage);
  const print = (verb: string, member: MemberRecord) =>
    io.out(values.json ? JSON.stringify(member) : `${verb} ${project}: ${memberLine(member)}`);

  const connection = await connect(values.stage, io);
  const members = new Members({
    store: connection.store,
    owners: connection.projects,
    projects: connection.projects,
    clock: io.clock ?? Date.now,
  });
  const subject = () => ({ project, target: memberId(person) });
  try {
    await withAuditTrail(
      MEMBERS_TOOL,
      command,
      { ...(values.stage ? { stage: parseStage(values.stage) } : {}), ...io },
      subject,
      // The member rules' refusals in the tool's words, before the trail records the outcome.
      () =>
        perform().catch((error: unknown) => {
          if (!(error instanceof MemberRefusal)) throw error;
          if (error.kind === 'invalid_member') throw new UsageError(error.message);
          throw new Refusal(error.message);
        }),
    );
  } finally {
    connection.close();
  }

  async function perform(): Promise<void> {
    switch (command) {
      case 'list': {
        if (!(await connection.projects.get(project))) throw new Refusal(`There is no project ${project}.`);
        const listed = await members.listOf(project);
        if (values.json) io.out(JSON.stringify(listed));
        else if (listed.length === 0) {
          io.out(`Project ${project} has no members: its console token opens its console.`);
          io.out(`Add its first owner: npm run members -- add --project ${project} --role owner ...`);
        } else for (const member of listed) io.out(memberLine(member));
        break;
      }
      case 'add': {
        const email = values.email ?? '';
        const added = await members.add(
          project,
          { ...person, email, ...(values.name ? { name: values.name } : {}) },
          role as Role,
          'platform',
        );
        print('Added to', added);
        break;
      }
      case 'set-role':
        print('Changed in', await members.setRole(project, person, role as Role, 'platform'));
        break;
      case 'remove':
        print('Removed from', await members.remove(project, person, 'platform'));
        break;
      default:
        throw new Error(`Command ${command} is declared but not implemented.`);
    }
  }
}

if (require.main === module) {
  runToolMain(MEMBERS_TOOL, (argv) =>
    runMembersCommand(argv, { out: (line) => process.stdout.write(`${line}\n`) }),
  );
}
