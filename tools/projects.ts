import { MAX_ALLOWED_ORIGINS, type ProjectRecord, projectLimits } from '../lambda/core/project';
import { ENVIRONMENT_NAMES } from '../lib/config/environments';
import { GATEWAY_KEY_QUOTA } from './api-gateway-keys';
import { withAuditTrail } from './audit-trail';
import { parseCommandLine, runToolMain, type ToolSpec } from './cli';
import type { ToolConnection } from './connection';
import { PLAN_NAMES } from '../lambda/core/plans';
import {
  connectLocal,
  DEFAULT_LOCAL_API_PORT,
  inOneCommand,
  LOCAL_API_PORT_VARIABLE,
  localStoreHelp,
  type ToolTable,
  toolTableNames,
  toolTablesHelp,
} from './local-store';
import { checkOrigins, originsText, ProjectAdmin } from './project-admin';
import { migrateToProjects, migrationReport } from './project-migration';
import { AUDIT_COMMAND, AUDIT_OPTIONS, auditCommand, projectsAuditSubject } from './project-audit';
import { USAGE_COMMAND, USAGE_OPTIONS, usageCommand } from './project-usage';
import { SELF_SERVICE_COMMAND, selfServiceCommand } from './project-self-service';
import { connectStage, parseStage, type StageClients, type StageOptions } from './stage';
import {
  AGREED_PLANS,
  agreedPlanText,
  limitsText,
  parseNumbers,
  parsePlan,
  STANDARD_PLANS,
} from './project-plans';

const OPTIONS = {
  plan: {
    type: 'string',
    value: 'PLAN',
    description: `Plan of the new project (default free): ${PLAN_NAMES.join(', ')}.`,
  },
  'per-minute': {
    type: 'string',
    value: 'N',
    description: `Requests per minute agreed with the customer, with --plan ${AGREED_PLANS.join(' or ')} only.`,
  },
  'per-day': {
    type: 'string',
    value: 'N',
    description: `Requests per day agreed with the customer, with --plan ${AGREED_PLANS.join(' or ')} only.`,
  },
  json: { type: 'boolean', description: 'Print JSON instead of text.' },
  yes: { type: 'boolean', description: 'Confirm a deletion.' },
  stage: {
    type: 'string',
    value: 'NAME',
    description: [
      `Act on a deployed environment (${ENVIRONMENT_NAMES.join(', ')}): its tables (from the stack`,
      "outputs) and its API Gateway keys, with the AWS credentials and region of the SDK's default",
      'chain (AWS_PROFILE, AWS_REGION, ...). Without it, act on the local store.',
    ].join('\n'),
  },
} as const;

/** The tables the projects tool reads in local mode. */
const TABLES = ['projects', 'apiKeys', 'pets', 'customDomains', 'projectMembers', 'invitations'] as const;

/** The projects tool, declared once: usage, parsing and checks come from it. */
export const PROJECTS_TOOL: ToolSpec<typeof OPTIONS & typeof USAGE_OPTIONS & typeof AUDIT_OPTIONS> = {
  name: 'projects',
  options: { ...OPTIONS, ...USAGE_OPTIONS, ...AUDIT_OPTIONS },
  global: ['stage'],
  commands: [
    {
      name: 'create',
      operands: ['name'],
      options: ['plan', 'per-minute', 'per-day', 'json'],
      audit: 'project.create',
      summary: [
        'Create a project: its name is its subdomain (3 to 63 lower-case letters, digits and',
        'hyphens). Prints its address and console token (shown once, stored only as a hash).',
      ].join('\n'),
    },
    { name: 'list', options: ['json'], summary: 'List projects with their plans, limits and addresses.' },
    {
      name: 'show',
      operands: ['name'],
      options: ['json'],
      summary: 'Show a project: plan, limits, address and keys (never secrets).',
    },
    {
      name: 'set-plan',
      operands: ['name', 'plan'],
      options: ['per-minute', 'per-day', 'json'],
      audit: 'plan.change',
      summary: [
        "Move a project to another plan; every key of it follows within the authorizer's",
        'cache time (30 s). With --stage, waits that long before deleting the old gateway key.',
      ].join('\n'),
    },
    {
      name: 'set-origins',
      operands: ['name', 'origin...'],
      options: ['json'],
      audit: 'origins.change',
      summary: [
        "Set the browser origins whose pages may call the project's address (CORS), e.g.",
        `https://app.example.com or http://localhost:5173; at most ${MAX_ALLOWED_ORIGINS}. None clears the list.`,
        "Takes effect within the authorizer's cache time (30 s).",
      ].join('\n'),
    },
    {
      name: 'delete',
      operands: ['name'],
      options: ['yes'],
      required: ['yes'],
      audit: 'project.delete',
      summary: 'Delete a project that has no active keys and no custom domains, and its members.',
    },
    {
      name: 'rotate-console-token',
      operands: ['name'],
      options: ['json'],
      summary: 'Issue a new console token (printed once); the previous one stops working at once.',
    },
    {
      name: 'migrate',
      options: ['json'],
      summary: [
        'Move keys and pets from before projects into project legacy (created with the highest',
        'plan among those keys). Running it again does nothing.',
      ].join('\n'),
    },
    USAGE_COMMAND,
    AUDIT_COMMAND,
    SELF_SERVICE_COMMAND,
  ],
  epilogue: `Plans: ${STANDARD_PLANS.join(', ')}; ${AGREED_PLANS.map(agreedPlanText).join(', ')},
  whose numbers are agreed per project: --plan ${AGREED_PLANS[0] ?? 'enterprise'} --per-minute N --per-day N.

${localStoreHelp([
  ...toolTablesHelp(TABLES),
  {
    variable: LOCAL_API_PORT_VARIABLE,
    what: `Port of npm start, for local addresses (default ${DEFAULT_LOCAL_API_PORT}).`,
  },
])}

API Gateway allows ${GATEWAY_KEY_QUOTA.toLocaleString('en-US')} API keys per account and region, shared by every
environment there: each project on a stage holds one, so create fails at that ceiling.

Exit codes: 0 done; 2 wrong invocation; 1 failed or refused (the message says why, and what was undone).`,
};

export interface ProjectsCommandIo {
  /** Results, on stdout. */
  readonly out: (line: string) => void;
  /** Progress while waiting, on stderr (so `--json` output stays one object). */
  readonly note?: (line: string) => void;
  /** The local store; by default where npm start runs it (DYNAMODB_PORT, DYNAMODB_ENDPOINT). */
  readonly endpoint?: string;
  /** Local table names; by default from the environment (PROJECTS_TABLE_NAME, ...). */
  readonly tables?: Partial<Record<ToolTable, string>>;
  /** Where PORT is read for local addresses; by default the process environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** AWS clients to use with --stage instead of the default ones (tests). */
  readonly stageClients?: StageClients;
  readonly stageOptions?: StageOptions;
}

function projectJson(project: ProjectRecord, address: string) {
  return {
    name: project.name,
    plan: project.plan,
    limits: projectLimits(project),
    address,
    allowedOrigins: project.allowedOrigins ?? [],
    createdAt: project.createdAt,
  };
}

/** Runs one projects command against the local store at `io.endpoint`, or against `--stage`. */
export function runProjectsCommand(argv: readonly string[], io: ProjectsCommandIo): Promise<void> {
  // Its connection and its audit entry's make sure of the local tables once between them.
  return inOneCommand(() => projectsCommand(argv, io));
}

async function projectsCommand(argv: readonly string[], io: ProjectsCommandIo): Promise<void> {
  const line = parseCommandLine(PROJECTS_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return;
  }
  const { command, values, operands } = line;

  // Every usage check comes before any connection, so a typo costs no AWS call.
  const stage = values.stage === undefined ? undefined : parseStage(values.stage);
  const numbers = parseNumbers(values['per-minute'], values['per-day']);
  const [name = '', planText] = operands;
  let run: (admin: ProjectAdmin, connection: ToolConnection) => Promise<void>;
  switch (command) {
    case 'create': {
      const plan = parsePlan(values.plan ?? 'free');
      run = async (admin, connection) => {
        const { record, consoleToken } = await admin.create(name, plan, numbers);
        const address = connection.addressOf(name);
        if (values.json) io.out(JSON.stringify({ name, plan: record.plan, address, consoleToken }));
        else {
          io.out(`Created project ${name} on plan ${record.plan} (${limitsText(record)}).`);
          io.out(`Address: ${address}`);
          io.out(`Console token (shown once, store it now): ${consoleToken}`);
          io.out(`Issue its first API key: npm run keys -- create --project ${name}`);
          io.out(
            `Add its first owner (the console token then stops opening its console): npm run members -- add --project ${name} --role owner --issuer <provider> --subject <sub> --email <address>`,
          );
        }
      };
      break;
    }
    case 'list':
      run = async (admin, connection) => {
        const projects = await admin.list();
        if (values.json)
          io.out(JSON.stringify(projects.map((p) => projectJson(p, connection.addressOf(p.name)))));
        else if (projects.length === 0) io.out('No projects.');
        else {
          for (const project of projects) {
            io.out(
              `${project.name.padEnd(20)}  ${project.plan.padEnd(10)}  ${limitsText(project).padEnd(34)}  ${connection.addressOf(project.name)}`,
            );
          }
        }
      };
      break;
    case 'show':
      run = async (admin, connection) => {
        const { project, keys } = await admin.show(name);
        const address = connection.addressOf(name);
        if (values.json) {
          io.out(
            JSON.stringify({
              ...projectJson(project, address),
              consoleTokenIssuedAt: project.consoleTokenIssuedAt,
              keys: keys.map(({ keyId, name: keyName, createdAt, revokedAt }) => ({
                id: keyId,
                name: keyName,
                createdAt,
                revokedAt,
              })),
            }),
          );
          return;
        }
        io.out(`Project ${name}`);
        io.out(`  Plan:          ${project.plan} (${limitsText(project)})`);
        io.out(`  Address:       ${address}`);
        io.out(`  Origins:       ${originsText(project.allowedOrigins ?? [])}`);
        io.out(`  Created:       ${project.createdAt}`);
        io.out(`  Console token: issued ${project.consoleTokenIssuedAt}`);
        if (keys.length === 0) io.out(`  Keys:          none (npm run keys -- create --project ${name})`);
        else {
          io.out('  Keys:');
          for (const key of keys) {
            const state = key.revokedAt ? `revoked ${key.revokedAt}` : 'active';
            io.out(`    ${key.keyId}  ${state.padEnd(8)}  created ${key.createdAt}  ${key.name}`);
          }
        }
      };
      break;
    case 'set-plan': {
      const plan = parsePlan(planText ?? '');
      run = async (admin) => {
        const change = await admin.setPlan(name, plan, numbers);
        const limits = projectLimits({ plan: change.to, agreedLimits: change.agreedLimits });
        if (values.json) io.out(JSON.stringify({ name, plan: change.to, previousPlan: change.from, limits }));
        else {
          const now = limitsText({ plan: change.to, agreedLimits: change.agreedLimits });
          io.out(
            change.from === change.to
              ? `Project ${name} stays on plan ${change.to} (${now}); every key of it follows within 30 seconds.`
              : `Moved project ${name} from plan ${change.from} to plan ${change.to} (${now}); every key of it follows within 30 seconds.`,
          );
        }
        if (change.incomplete) throw new Error(change.incomplete);
      };
      break;
    }
    case 'set-origins': {
      const given = operands.slice(1);
      checkOrigins(given);
      run = async (admin) => {
        const origins = await admin.setOrigins(name, given);
        if (values.json) io.out(JSON.stringify({ name, allowedOrigins: origins }));
        else
          io.out(
            `Project ${name} allows ${origins.length === 0 ? 'no browser origins' : `browser origins ${originsText(origins)}`}; its address follows within 30 seconds.`,
          );
      };
      break;
    }
    case 'delete':
      run = async (admin) => {
        const { incomplete, members, invitations } = await admin.delete(name);
        if (incomplete) throw new Error(incomplete);
        io.out(`Deleted project ${name}.`);
        if (members > 0) io.out(`Removed its ${members === 1 ? 'member' : `${members} members`}.`);
        if (invitations > 0) {
          io.out(`Removed its ${invitations === 1 ? 'invitation' : `${invitations} invitations`}.`);
        }
      };
      break;
    case 'rotate-console-token':
      run = async (admin) => {
        const consoleToken = await admin.rotateConsoleToken(name);
        if (values.json) io.out(JSON.stringify({ name, consoleToken }));
        else {
          io.out(`New console token of project ${name} (shown once, store it now): ${consoleToken}`);
          io.out('The previous console token no longer works.');
        }
      };
      break;
    case 'migrate':
      run = async (_admin, connection) => {
        const result = await migrateToProjects(connection);
        for (const line of migrationReport(result, values.json === true)) io.out(line);
        if (result.incomplete) throw new Error(result.incomplete);
      };
      break;
    case 'usage':
      run = usageCommand(operands[0], values, stage, io);
      break;
    case 'audit':
      run = auditCommand(name, values, stage, io);
      break;
    case 'self-service':
      run = selfServiceCommand(values, stage, io);
      break;
    default:
      throw new Error(`Command ${command} is declared but not implemented.`);
  }

  const connection: ToolConnection = stage
    ? await connectStage(stage, io.stageClients, io.stageOptions)
    : await connectLocal(io.endpoint, { ...toolTableNames(), ...io.tables }, io.env);
  const { waitForKeyCaches } = connection;
  const admin = new ProjectAdmin({
    ...connection,
    ...(waitForKeyCaches && {
      waitForKeyCaches: async () => {
        io.note?.("Waiting for the authorizers' key caches before deleting the replaced gateway key...");
        await waitForKeyCaches();
      },
    }),
  });
  const subject = () => projectsAuditSubject(command, operands);
  try {
    await withAuditTrail(PROJECTS_TOOL, command, { ...io, ...(stage && { stage }) }, subject, () =>
      run(admin, connection),
    );
  } finally {
    connection.close();
  }
}

if (require.main === module) {
  runToolMain(PROJECTS_TOOL, (argv) =>
    runProjectsCommand(argv, {
      out: (line) => process.stdout.write(`${line}\n`),
      note: (line) => process.stderr.write(`${line}\n`),
    }),
  );
}
