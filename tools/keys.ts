import type { ApiKeyRecord } from '../lambda/domain/api-key';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { ENVIRONMENT_NAMES } from '../lib/config/environments';
import { ensureLocalTablesAt, LOCAL_TABLE_NAMES } from '../local/local-tables';
import { configuredPlans, KeyAdmin, parsePlan } from './key-admin';
import { reason, UsageError, parseCommandLine as parseToolCommandLine } from './failures';
import { connectStage, parseStage, type StageClients } from './stage';

export { UsageError } from './failures';

const USAGE = `Usage: npm run keys -- <command> [options] [--stage ${ENVIRONMENT_NAMES.join('|')}]

Commands:
  create [--plan PLAN] [--name TEXT] [--json]
                      Issue a key (plan defaults to free). The key is printed once and stored only as a hash.
  list [--json]       List keys (never their secrets).
  revoke <id>         Revoke a key; it stops working within the authorizer's cache time (30 s).
  rotate <id> [--json]
                      Replace a key by a new one with the same plan and name (printed once); the old
                      key is revoked and stops working within 30 s.
  set-plan <id> <plan>
                      Move an active key to another plan.

Plans: ${configuredPlans().join(', ')}.

Options:
  --stage NAME        Act on a deployed environment: its keys table (from the stack outputs) and its
                      API Gateway usage plans, with the AWS credentials and region of the SDK's default
                      chain (AWS_PROFILE, AWS_REGION, ...). Without it, act on the local store.

Environment (without --stage):
  DYNAMODB_ENDPOINT   Store to act on (default http://127.0.0.1:8000, the local mode's embedded store).
  API_KEYS_TABLE_NAME Keys table (default ${LOCAL_TABLE_NAMES.apiKeys}).

Exit codes: 0 done; 2 wrong invocation; 1 failed (the message says what was done and what was undone).`;

export interface KeysCommandIo {
  readonly out: (line: string) => void;
  readonly endpoint: string;
  readonly tableName: string;
  /** AWS clients to use with --stage instead of the default ones (tests). */
  readonly stageClients?: StageClients;
}

function describeKey(record: ApiKeyRecord): string {
  const state = record.revokedAt ? `revoked ${record.revokedAt}` : 'active';
  return `${record.keyId}  ${record.plan.padEnd(10)}  ${state.padEnd(8)}  created ${record.createdAt}  ${record.name}`;
}

const OPTIONS = {
  plan: { type: 'string' },
  name: { type: 'string' },
  json: { type: 'boolean' },
  stage: { type: 'string' },
} as const;

function parseCommandLine(argv: readonly string[]) {
  return parseToolCommandLine(argv, OPTIONS, USAGE);
}

/** The positional arguments of a command, exactly `names.length` of them. */
function operands(command: string, rest: readonly string[], names: readonly string[]): string[] {
  if (rest.length !== names.length) {
    const form = [command, ...names.map((name) => `<${name}>`)].join(' ');
    throw new UsageError(`Wrong arguments for ${command}: npm run keys -- ${form}`);
  }
  return [...rest];
}

async function connectLocal(io: KeysCommandIo): Promise<{ keys: ApiKeyRepository; close(): void }> {
  if (io.tableName === LOCAL_TABLE_NAMES.apiKeys) await ensureLocalTablesAt(io.endpoint);
  const documents = createDocumentClient(io.endpoint);
  return { keys: new ApiKeyRepository(documents, io.tableName), close: () => documents.destroy() };
}

/** Runs one keys command against the local store at `io.endpoint`, or against `--stage`. */
export async function runKeysCommand(argv: readonly string[], io: KeysCommandIo): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  const [command, ...rest] = positionals;
  if (values.help || !command) throw new UsageError(USAGE);

  // Every usage check comes before any connection, so a typo costs no AWS call.
  const stage = values.stage === undefined ? undefined : parseStage(values.stage);
  let run: (admin: KeyAdmin) => Promise<void>;
  switch (command) {
    case 'create': {
      operands(command, rest, []);
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
      operands(command, rest, []);
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
      if (rest.length === 0) throw new UsageError('revoke needs the key id: npm run keys -- revoke <id>');
      const [keyId = ''] = operands(command, rest, ['id']);
      run = async (admin) => {
        const { incomplete } = await admin.revoke(keyId);
        if (incomplete) throw new Error(incomplete);
        io.out(`Revoked key ${keyId}; it stops working within 30 seconds.`);
      };
      break;
    }
    case 'rotate': {
      const [keyId = ''] = operands(command, rest, ['id']);
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
      const [keyId = '', planText = ''] = operands(command, rest, ['id', 'plan']);
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
      throw new UsageError(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
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
  // The SDK warns on every run that Node 20 nears its end of support: noise in an operator's output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  runKeysCommand(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    endpoint: process.env.DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000',
    tableName: process.env.API_KEYS_TABLE_NAME ?? LOCAL_TABLE_NAMES.apiKeys,
  }).catch((error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`keys: ${reason(error)}\n`);
    process.exit(1);
  });
}
