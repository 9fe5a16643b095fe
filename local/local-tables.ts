import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import {
  API_KEYS_TABLE,
  AUDIT_LOG_TABLE,
  CONSOLE_SESSIONS_TABLE,
  CUSTOM_DOMAINS_TABLE,
  IDEMPOTENCY_TABLE,
  INVITATIONS_TABLE,
  PERSONAL_TOKENS_TABLE,
  PETS_TABLE,
  PROJECT_MEMBERS_TABLE,
  PROJECTS_TABLE,
  RATE_LIMITS_TABLE,
  type TableDefinition,
} from '../lambda/store/table-schema';
import { createTableInput } from './table-input';
import { holdingTableName, indexesMatch, upgradeLocalTable } from './table-upgrade';

export { createTableInput };

/** Names of the tables in local mode. */
export const LOCAL_TABLE_NAMES = {
  pets: 'animal-store-pets',
  apiKeys: 'animal-store-api-keys',
  projects: 'animal-store-projects',
  rateLimits: 'animal-store-rate-limits',
  idempotency: 'animal-store-idempotency-keys',
  customDomains: 'animal-store-custom-domains',
  consoleSessions: 'animal-store-console-sessions',
  projectMembers: 'animal-store-project-members',
  invitations: 'animal-store-invitations',
  auditLog: 'animal-store-audit-log',
  personalTokens: 'animal-store-personal-tokens',
} as const;

export const LOCAL_TABLES: readonly [TableDefinition, string][] = [
  [PETS_TABLE, LOCAL_TABLE_NAMES.pets],
  [API_KEYS_TABLE, LOCAL_TABLE_NAMES.apiKeys],
  [PROJECTS_TABLE, LOCAL_TABLE_NAMES.projects],
  [RATE_LIMITS_TABLE, LOCAL_TABLE_NAMES.rateLimits],
  [IDEMPOTENCY_TABLE, LOCAL_TABLE_NAMES.idempotency],
  [CUSTOM_DOMAINS_TABLE, LOCAL_TABLE_NAMES.customDomains],
  [CONSOLE_SESSIONS_TABLE, LOCAL_TABLE_NAMES.consoleSessions],
  [PROJECT_MEMBERS_TABLE, LOCAL_TABLE_NAMES.projectMembers],
  [INVITATIONS_TABLE, LOCAL_TABLE_NAMES.invitations],
  [AUDIT_LOG_TABLE, LOCAL_TABLE_NAMES.auditLog],
  [PERSONAL_TOKENS_TABLE, LOCAL_TABLE_NAMES.personalTokens],
];

/** How often, and how long at most, to ask whether a new table is ACTIVE. */
const ACTIVE_POLL_MS = 25;
const ACTIVE_DEADLINE_MS = 30_000;

/** A table's description, or undefined when it does not exist. */
async function describeTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/** The table's status, with its indexes' (a table with an index still CREATING refuses queries on it). */
function statusOf(table: TableDescription | undefined): string | undefined {
  const indexes = table?.GlobalSecondaryIndexes ?? [];
  return indexes.every((index) => index.IndexStatus === undefined || index.IndexStatus === 'ACTIVE')
    ? table?.TableStatus
    : 'CREATING';
}

const tableStatus = async (client: DynamoDBClient, tableName: string) =>
  statusOf(await describeTable(client, tableName));

/** Every table's name on the store. */
async function listedTables(client: DynamoDBClient): Promise<ReadonlySet<string>> {
  const names = new Set<string>();
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    for (const name of page.TableNames ?? []) names.add(name);
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}

/**
 * Creates every table that does not exist yet (existing tables and their data are left
 * alone), then waits until each is ACTIVE: a store answers a new table's first item
 * operations with ResourceNotFoundException until then, so a caller may use every
 * table as soon as this resolves. Every tool command runs this: one listing and one
 * description per table that is there (not three descriptions of each table).
 */
export async function ensureLocalTables(client: DynamoDBClient): Promise<void> {
  const listed = await listedTables(client);
  const waiting: string[] = [];
  for (const [table, tableName] of LOCAL_TABLES) {
    let live = listed.has(tableName) ? await describeTable(client, tableName) : undefined;
    // Data from an older release, or a rebuild cut short: rebuilt to today's indexes, items kept.
    if (
      listed.has(holdingTableName(tableName)) ||
      (live && !indexesMatch(live.GlobalSecondaryIndexes, table))
    ) {
      await upgradeLocalTable(client, table, tableName);
      live = await describeTable(client, tableName);
    }
    const status = statusOf(live);
    if (status === 'ACTIVE') continue;
    waiting.push(tableName);
    if (status !== undefined) continue;
    try {
      await client.send(new CreateTableCommand(createTableInput(table, tableName)));
    } catch (error) {
      // Another process (npm start, a tool) created it first.
      if (!(error instanceof ResourceInUseException)) throw error;
    }
  }
  for (const tableName of waiting) await waitForActiveTable(client, tableName);
}

/**
 * Waits until a table and its indexes are ACTIVE: a store answers a new table's item
 * operations with ResourceNotFoundException until then, however soon it gets there.
 */
export async function waitForActiveTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const deadline = Date.now() + ACTIVE_DEADLINE_MS;
  for (;;) {
    const status = await tableStatus(client, tableName);
    if (status === 'ACTIVE') return;
    if (Date.now() > deadline) {
      throw new Error(
        `Table ${tableName} is still ${status ?? 'missing'} after ${ACTIVE_DEADLINE_MS / 1000} s: the store does not finish creating it.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, ACTIVE_POLL_MS));
  }
}

/** The port of the embedded store (`npm start`) on 127.0.0.1 when DYNAMODB_PORT is unset. */
export const DEFAULT_DYNAMODB_PORT = 8000;

/** The variables that say where the local store is, named in messages. */
export const LOCAL_STORE_VARIABLES = `DYNAMODB_PORT (port on 127.0.0.1, default ${DEFAULT_DYNAMODB_PORT}) or DYNAMODB_ENDPOINT (a URL; it overrides DYNAMODB_PORT)`;

/** A port number from the environment variable `name`; `fallback` when unset or empty. */
export function portFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw new Error(`${name}=${raw} is not a port number: use an integer from 0 to 65535.`);
  }
  return port;
}

/** Where the local mode's store is, read the same way by `npm start` and by every tool. */
export interface LocalStoreLocation {
  /** DYNAMODB_ENDPOINT: a store run elsewhere, so `npm start` embeds none. */
  readonly endpoint?: string;
  /** DYNAMODB_PORT: the embedded store's port on 127.0.0.1 (0: `npm start` picks a free one). */
  readonly port: number;
}

/** Reads {@link LocalStoreLocation} from the environment; a bad value throws a message naming the variable. */
export function localStoreLocation(env: NodeJS.ProcessEnv = process.env): LocalStoreLocation {
  const port = portFromEnv('DYNAMODB_PORT', DEFAULT_DYNAMODB_PORT, env);
  const endpoint = env.DYNAMODB_ENDPOINT || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+/.test(endpoint)) {
    throw new Error(
      `DYNAMODB_ENDPOINT=${endpoint} is not a URL: use e.g. http://127.0.0.1:${DEFAULT_DYNAMODB_PORT}.`,
    );
  }
  return endpoint === undefined ? { port } : { endpoint, port };
}

/** The endpoint a client of the running local store connects to (a tool, as opposed to `npm start`). */
export function localStoreEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  const { endpoint, port } = localStoreLocation(env);
  if (endpoint !== undefined) return endpoint;
  if (port === 0) {
    throw new Error(
      'DYNAMODB_PORT=0 lets npm start pick a free port, which no other process can guess: set DYNAMODB_PORT to the port npm start printed, or DYNAMODB_ENDPOINT to its store URL.',
    );
  }
  return `http://127.0.0.1:${port}`;
}

/** A low-level client for a local DynamoDB-compatible store (its credentials are not checked). */
export function localStoreClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Creates the local tables that are missing on the store at `endpoint`. */
export async function ensureLocalTablesAt(endpoint: string): Promise<void> {
  const admin = localStoreClient(endpoint);
  try {
    await ensureLocalTables(admin);
  } finally {
    admin.destroy();
  }
}
