import type { ApiKeyRecord } from '../lambda/domain/api-key';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { ENVIRONMENT_NAMES } from '../lib/config/environments';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { parseCommandLine, runToolMain, type ToolSpec } from './cli';
import { configuredPlans, KeyAdmin, parsePlan } from './key-admin';
import { localStoreHelp, openLocalTable, toolStoreEndpoint } from './local-store';
import { connectStage, parseStage, type StageClients } from './stage';

export { UsageError } from './failures';

const OPTIONS = {
  plan: {
    type: 'string',
    value: 'PLAN',
    description: `Plan of the new key (default free): ${configuredPlans().join(', ')}.`,
  },
  name: { type: 'string', value: 'TEXT', description: 'Name of the new key, to tell keys apart in list.' },
  json: { type: 'boolean', description: 'Print JSON instead of text.' },
  stage: {
    type: 'string',
    value: 'NAME',
    description: [
      `Act on a deployed environment (${ENVIRONMENT_NAMES.join(', ')}): its keys table (from the`,
      'stack outputs) and its API Gateway usage plans, with the AWS credentials and region of the',
      "SDK's default chain (AWS_PROFILE, AWS_REGION, ...). Without it, act on the local store.",
    ].join('\n'),
  },
} as const;

/** The keys tool, declared once: usage, parsing and checks come from it. */
export const KEYS_TOOL: ToolSpec<typeof OPTIONS> = {
  name: 'keys',
  options: OPTIONS,
  global: ['stage'],
  commands: [
    {
      name: 'create',
      options: ['plan', 'name', 'json'],
      summary: 'Issue a key (plan defaults to free). The key is printed once and stored only as a hash.',
    },
    { name: 'list', options: ['json'], summary: 'List keys (never their secrets).' },
    {
      name: 'revoke',
      operands: ['id'],
      summary: "Revoke a key; it stops working within the authorizer's cache time (30 s).",
    },
    {
      name: 'rotate',
      operands: ['id'],
      options: ['json'],
      summary: [
        'Replace a key by a new one with the same plan and name (printed once); the old',
        'key is revoked and stops working within 30 s.',
      ].join('\n'),
    },
    {
      name: 'set-plan',
      operands: ['id', 'plan'],
      options: ['json'],
      summary: 'Move an active key to another plan.',
    },
  ],
  epilogue: `${localStoreHelp([
    { variable: 'API_KEYS_TABLE_NAME', what: `Keys table (default ${LOCAL_TABLE_NAMES.apiKeys}).` },
  ])}

Exit codes: 0 done; 2 wrong invocation; 1 failed (the message says what was done and what was undone).`,
};

export interface KeysCommandIo {
  readonly out: (line: string) => void;
  /** The local store; by default where npm start runs it (DYNAMODB_PORT, DYNAMODB_ENDPOINT). */
  readonly endpoint?: string;
  readonly tableName: string;
  /** AWS clients to use with --stage instead of the default ones (tests). */
  readonly stageClients?: StageClients;
}

function describeKey(record: ApiKeyRecord): string {
  const state = record.revokedAt ? `revoked ${record.revokedAt}` : 'active';
  return `${record.keyId}  ${record.plan.padEnd(10)}  ${state.padEnd(8)}  created ${record.createdAt}  ${record.name}`;
}

async function connectLocal(io: KeysCommandIo): Promise<{ keys: ApiKeyRepository; close(): void }> {
  const documents = await openLocalTable(io.endpoint ?? toolStoreEndpoint(), {
    tableName: io.tableName,
    variable: 'API_KEYS_TABLE_NAME',
  });
  return { keys: new ApiKeyRepository(documents, io.tableName), close: () => documents.destroy() };
}

/** Runs one keys command against the local store at `io.endpoint`, or against `--stage`. */
export async function runKeysCommand(argv: readonly string[], io: KeysCommandIo): Promise<void> {
  const line = parseCommandLine(KEYS_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return;
  }
  const { command, values, operands } = line;

  // Every usage check comes before any connection, so a typo costs no AWS call.
  const stage = values.stage === undefined ? undefined : parseStage(values.stage);
  let run: (admin: KeyAdmin) => Promise<void>;
  switch (command) {
    case 'create': {
      const plan = parsePlan(values.plan ?? 'free');
      run = async (admin) => {
        const { apiKey, record } = await admin.create(plan, values.name ?? '');
        if (values.json) io.out(JSON.stringify({ id: record.keyId, apiKey, plan: record.plan }));
        else {
          io.out(`Created key ${record.keyId} on plan ${record.plan}.`);
          io.out(`API key (shown once, store it now): ${apiKey}`);
        }
      };
      break;
    }
    case 'list': {
      run = async (admin) => {
        const records = await admin.list();
        if (values.json) {
          io.out(
            JSON.stringify(
              records.map(({ keyId, plan, name, createdAt, revokedAt }) => ({
                id: keyId,
                plan,
                name,
                createdAt,
                revokedAt,
              })),
            ),
          );
        } else if (records.length === 0) io.out('No keys.');
        else for (const record of records) io.out(describeKey(record));
      };
      break;
    }
    case 'revoke': {
      const [keyId = ''] = operands;
      run = async (admin) => {
        const { incomplete } = await admin.revoke(keyId);
        if (incomplete) throw new Error(incomplete);
        io.out(`Revoked key ${keyId}; it stops working within 30 seconds.`);
      };
      break;
    }
    case 'rotate': {
      const [keyId = ''] = operands;
      run = async (admin) => {
        const { apiKey, record, replaces, incomplete } = await admin.rotate(keyId);
        if (values.json) io.out(JSON.stringify({ id: record.keyId, apiKey, plan: record.plan, replaces }));
        else {
          io.out(`Rotated key ${replaces}: new key ${record.keyId} on plan ${record.plan}.`);
          io.out(`API key (shown once, store it now): ${apiKey}`);
          io.out(`Key ${replaces} is revoked; it stops working within 30 seconds.`);
        }
        // The new key is printed first: its secret exists nowhere else.
        if (incomplete) throw new Error(incomplete);
      };
      break;
    }
    case 'set-plan': {
      const [keyId = '', planText = ''] = operands;
      const plan = parsePlan(planText);
      run = async (admin) => {
        const { from, to } = await admin.setPlan(keyId, plan);
        if (values.json) io.out(JSON.stringify({ id: keyId, plan: to, previousPlan: from }));
        else if (from === to) io.out(`Key ${keyId} is already on plan ${to}.`);
        else io.out(`Moved key ${keyId} from plan ${from} to plan ${to}.`);
      };
      break;
    }
    default:
      throw new Error(`Command ${command} is declared but not implemented.`);
  }

  if (stage) {
    const deployed = await connectStage(stage, io.stageClients);
    try {
      await run(new KeyAdmin({ keys: deployed.keys, gateway: deployed.gateway }));
    } finally {
      deployed.close();
    }
  } else {
    const local = await connectLocal(io);
    try {
      await run(new KeyAdmin({ keys: local.keys }));
    } finally {
      local.close();
    }
  }
}

if (require.main === module) {
  runToolMain(KEYS_TOOL, (argv) =>
    runKeysCommand(argv, {
      out: (line) => process.stdout.write(`${line}\n`),
      tableName: process.env.API_KEYS_TABLE_NAME || LOCAL_TABLE_NAMES.apiKeys,
    }),
  );
}
