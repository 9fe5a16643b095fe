import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isPlanName, type PlanName } from '../lambda/api/plans';
import { type ApiKeyRecord, issueApiKey } from '../lambda/domain/api-key';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { ensureLocalTables, LOCAL_TABLE_NAMES } from '../local/local-tables';

const USAGE = `Usage: npm run keys -- <command> [options]

Commands:
  create [--plan free|pro|business|enterprise:<agreement>] [--name TEXT] [--json]
                      Issue a key (plan defaults to free). The key is printed once and stored only as a hash.
  list [--json]       List keys (never their secrets).
  revoke <id>         Revoke a key; it stops working within the authorizer's cache time (30 s).

Environment:
  DYNAMODB_ENDPOINT   Store to act on (default http://127.0.0.1:8000, the local mode's embedded store).
  API_KEYS_TABLE_NAME Keys table (default ${LOCAL_TABLE_NAMES.apiKeys}).`;

/** Raised for a wrong invocation: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export interface KeysCommandIo {
  readonly out: (line: string) => void;
  readonly endpoint: string;
  readonly tableName: string;
}

function describeKey(record: ApiKeyRecord): string {
  const state = record.revokedAt ? `revoked ${record.revokedAt}` : 'active';
  return `${record.keyId}  ${record.plan.padEnd(10)}  ${state.padEnd(8)}  created ${record.createdAt}  ${record.name}`;
}

/** Runs one keys command against the store at `io.endpoint`. */
export async function runKeysCommand(argv: readonly string[], io: KeysCommandIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) throw new UsageError(USAGE);

  const admin = new DynamoDBClient({
    endpoint: io.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  if (io.tableName === LOCAL_TABLE_NAMES.apiKeys) await ensureLocalTables(admin);
  admin.destroy();
  const documents = createDocumentClient(io.endpoint);
  const keys = new ApiKeyRepository(documents, io.tableName);
  try {
    switch (command) {
      case 'create': {
        const plan = values.plan ?? 'free';
        if (!isPlanName(plan)) {
          throw new UsageError(
            `Unknown plan ${JSON.stringify(plan)}: use free, pro, business or enterprise:<agreement>.`,
          );
        }
        const { apiKey, record } = issueApiKey(plan as PlanName, values.name ?? '', new Date());
        await keys.put(record);
        if (values.json) io.out(JSON.stringify({ id: record.keyId, apiKey, plan: record.plan }));
        else {
          io.out(`Created key ${record.keyId} on plan ${record.plan}.`);
          io.out(`API key (shown once, store it now): ${apiKey}`);
        }
        return;
      }
      case 'list': {
        const records = await keys.list();
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
        return;
      }
      case 'revoke': {
        const [keyId] = rest;
        if (!keyId) throw new UsageError('revoke needs the key id: npm run keys -- revoke <id>');
        if (!(await keys.revoke(keyId, new Date()))) throw new UsageError(`No key has id ${keyId}.`);
        io.out(`Revoked key ${keyId}; it stops working within 30 seconds.`);
        return;
      }
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
    }
  } finally {
    documents.destroy();
  }
}

if (require.main === module) {
  runKeysCommand(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    endpoint: process.env.DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000',
    tableName: process.env.API_KEYS_TABLE_NAME ?? LOCAL_TABLE_NAMES.apiKeys,
  }).catch((error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`keys: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
