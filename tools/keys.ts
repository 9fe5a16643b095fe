import type { ApiKeyRecord } from '../lambda/core/api-key';
import { ENVIRONMENT_NAMES } from '../lib/config/environments';
import { withAuditTrail } from './audit-trail';
import { parseCommandLine, runToolMain, type ToolSpec } from './cli';
import type { ToolConnection } from './connection';
import { UsageError } from './failures';
import { KeyAdmin } from './key-admin';
import {
  connectLocal,
  inOneCommand,
  localStoreHelp,
  type ToolTable,
  toolTableNames,
  toolTablesHelp,
} from './local-store';
import { connectStage, parseStage, type StageClients } from './stage';

export { UsageError } from './failures';

const OPTIONS = {
  project: {
    type: 'string',
    value: 'NAME',
    description: 'The project the key acts for (npm run projects -- list).',
  },
  name: { type: 'string', value: 'TEXT', description: 'Name of the new key, to tell keys apart in list.' },
  json: { type: 'boolean', description: 'Print JSON instead of text.' },
  stage: {
    type: 'string',
    value: 'NAME',
    description: [
      `Act on a deployed environment (${ENVIRONMENT_NAMES.join(', ')}): its keys and projects tables`,
      "(from the stack outputs), with the AWS credentials and region of the SDK's default chain",
      '(AWS_PROFILE, AWS_REGION, ...). Without it, act on the local store.',
    ].join('\n'),
  },
} as const;

/** The tables the keys tool reads in local mode. */
const TABLES: readonly ToolTable[] = ['apiKeys', 'projects'];

/** The keys tool, declared once: usage, parsing and checks come from it. */
export const KEYS_TOOL: ToolSpec<typeof OPTIONS> = {
  name: 'keys',
  options: OPTIONS,
  global: ['stage'],
  commands: [
    {
      name: 'create',
      options: ['project', 'name', 'json'],
      required: ['project'],
      audit: 'key.create',
      summary: 'Issue a key of a project. The key is printed once and stored only as a hash.',
    },
    {
      name: 'list',
      options: ['project', 'json'],
      summary: "List keys, or a project's (never their secrets).",
    },
    {
      name: 'revoke',
      operands: ['id'],
      audit: 'key.revoke',
      summary: "Revoke a key; it stops working within the authorizer's cache time (30 s).",
    },
    {
      name: 'rotate',
      operands: ['id'],
      options: ['json'],
      audit: 'key.rotate',
      summary: [
        'Replace a key by a new one of the same project and name (printed once); the old',
        'key is revoked and stops working within 30 s.',
      ].join('\n'),
    },
    {
      name: 'move',
      operands: ['id'],
      options: ['project', 'json'],
      required: ['project'],
      summary: [
        'Move an active key to another project: its plan, pets and address, within 30 s.',
        'Keys from before projects are in project legacy.',
      ].join('\n'),
    },
  ],
  epilogue: `${localStoreHelp(toolTablesHelp(TABLES))}

Keys have no plan: a project has one (npm run projects -- set-plan).

Exit codes: 0 done; 2 wrong invocation; 1 failed (the message says what was done and what was undone).`,
};

/** Commands and options of earlier releases, with where their job went. */
const PLAN_MOVED =
  'Keys have no plan any more: their project has one. Change it with npm run projects -- set-plan <project> <plan>.';

function refuseRemoved(argv: readonly string[]): void {
  const command = argv.find((arg) => !arg.startsWith('-'));
  if (command === 'set-plan') throw new UsageError(PLAN_MOVED);
  if (argv.some((arg) => arg === '--plan' || arg.startsWith('--plan='))) {
    throw new UsageError(`${PLAN_MOVED} Create a key with npm run keys -- create --project <project>.`);
  }
}

export interface KeysCommandIo {
  readonly out: (line: string) => void;
  /** The local store; by default where npm start runs it (DYNAMODB_PORT, DYNAMODB_ENDPOINT). */
  readonly endpoint?: string;
  /** Local table names; by default from the environment (API_KEYS_TABLE_NAME, ...). */
  readonly tables?: Partial<Record<ToolTable, string>>;
  /** AWS clients to use with --stage instead of the default ones (tests). */
  readonly stageClients?: StageClients;
}

function describeKey(record: ApiKeyRecord): string {
  const state = record.revokedAt ? `revoked ${record.revokedAt}` : 'active';
  return `${record.keyId}  ${(record.project ?? '-').padEnd(20)}  ${state.padEnd(8)}  created ${record.createdAt}  ${record.name}`;
}

function keyJson({ keyId, project, name, createdAt, revokedAt }: ApiKeyRecord) {
  return { id: keyId, project, name, createdAt, revokedAt };
}

/** Runs one keys command against the local store at `io.endpoint`, or against `--stage`. */
export function runKeysCommand(argv: readonly string[], io: KeysCommandIo): Promise<void> {
  // Its connection and its audit entry's make sure of the local tables once between them.
  return inOneCommand(() => keysCommand(argv, io));
}

async function keysCommand(argv: readonly string[], io: KeysCommandIo): Promise<void> {
  refuseRemoved(argv);
  const line = parseCommandLine(KEYS_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return;
  }
  const { command, values, operands } = line;

  // Every usage check comes before any connection, so a typo costs no AWS call.
  const stage = values.stage === undefined ? undefined : parseStage(values.stage);
  const [keyId = ''] = operands;
  let run: (admin: KeyAdmin) => Promise<void>;
  switch (command) {
    case 'create':
      run = async (admin) => {
        const { apiKey, record } = await admin.create(values.project ?? '', values.name ?? '');
        if (values.json) io.out(JSON.stringify({ id: record.keyId, apiKey, project: record.project }));
        else {
          io.out(`Created key ${record.keyId} of project ${record.project}.`);
          io.out(`API key (shown once, store it now): ${apiKey}`);
        }
      };
      break;
    case 'list':
      run = async (admin) => {
        const records = await admin.list(values.project);
        if (values.json) io.out(JSON.stringify(records.map(keyJson)));
        else if (records.length === 0) io.out('No keys.');
        else for (const record of records) io.out(describeKey(record));
      };
      break;
    case 'revoke':
      run = async (admin) => {
        await admin.revoke(keyId);
        io.out(`Revoked key ${keyId}; it stops working within 30 seconds.`);
      };
      break;
    case 'rotate':
      run = async (admin) => {
        const { apiKey, record, replaces } = await admin.rotate(keyId);
        if (values.json)
          io.out(JSON.stringify({ id: record.keyId, apiKey, project: record.project, replaces }));
        else {
          io.out(`Rotated key ${replaces}: new key ${record.keyId} of project ${record.project}.`);
          io.out(`API key (shown once, store it now): ${apiKey}`);
          io.out(`Key ${replaces} is revoked; it stops working within 30 seconds.`);
        }
      };
      break;
    case 'move':
      run = async (admin) => {
        const { from, to } = await admin.move(keyId, values.project ?? '');
        if (values.json) io.out(JSON.stringify({ id: keyId, project: to, previousProject: from ?? null }));
        else if (from === to) io.out(`Key ${keyId} is already in project ${to}.`);
        else {
          io.out(
            `Moved key ${keyId} from ${from ? `project ${from}` : 'no project'} to project ${to}; ` +
              'it acts for its new project within 30 seconds.',
          );
        }
      };
      break;
    default:
      throw new Error(`Command ${command} is declared but not implemented.`);
  }

  const connection: ToolConnection = stage
    ? await connectStage(stage, io.stageClients)
    : await connectLocal(io.endpoint, { ...toolTableNames(), ...io.tables });
  // A key's project is read after the run: revoke and rotate name only the key.
  const subject = async () =>
    command === 'create'
      ? { project: values.project ?? '', ...(values.name ? { target: values.name } : {}) }
      : { project: (await connection.keys.get(keyId))?.project ?? '', target: keyId };
  try {
    await withAuditTrail(KEYS_TOOL, command, { ...(stage ? { stage } : {}), ...io }, subject, () =>
      run(new KeyAdmin({ keys: connection.keys, projects: connection.projects })),
    );
  } finally {
    connection.close();
  }
}

if (require.main === module) {
  runToolMain(KEYS_TOOL, (argv) =>
    runKeysCommand(argv, { out: (line) => process.stdout.write(`${line}\n`) }),
  );
}
