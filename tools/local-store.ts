import { AsyncLocalStorage } from 'node:async_hooks';
import { DescribeTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import {
  DEFAULT_DYNAMODB_PORT,
  ensureLocalTablesAt,
  LOCAL_STORE_VARIABLES,
  LOCAL_TABLE_NAMES,
  localStoreClient,
  localStoreEndpoint,
  portFromEnv,
} from '../local/local-tables';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { CustomDomainRepository } from '../lambda/store/custom-domain-repository';
import { InvitationRepository } from '../lambda/store/invitation-repository';
import { MemberRepository } from '../lambda/store/member-repository';
import { PetRepository } from '../lambda/store/pet-repository';
import { ProjectRepository } from '../lambda/store/project-repository';
import type { ToolConnection } from './connection';
import { reason, UsageError } from './failures';

/** Failures of a store that cannot be reached at all, in words: the error code is a developer's. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing listens there',
  ECONNRESET: 'the connection was cut',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the host',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'its host name cannot be resolved now',
  ETIMEDOUT: 'it does not answer',
};

/** The network error code of a failure, looking into causes and aggregated attempts (IPv4 and IPv6). */
function networkCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, name, cause, errors } = error as {
    code?: unknown;
    name?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && code in UNREACHABLE) return code;
  // The SDK's own connection and request timeouts carry no code.
  if (name === 'TimeoutError') return 'ETIMEDOUT';
  const nested = [cause, ...(Array.isArray(errors) ? (errors as unknown[]) : [])];
  return nested.map(networkCode).find((found) => found !== undefined);
}

/** The store a tool acts on without --stage: where `npm start` runs it. A bad variable is a wrong invocation. */
export function toolStoreEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return localStoreEndpoint(env);
  } catch (error) {
    throw new UsageError(reason(error));
  }
}

/** A local table a tool acts on, with the variable that renames it (e.g. API_KEYS_TABLE_NAME). */
export interface LocalTable {
  readonly tableName: string;
  readonly variable: string;
}

/** The Environment section of a tool's usage: where the local store is, and the table variables. */
export function localStoreHelp(tables: readonly { variable: string; what: string }[]): string {
  const row = (name: string, text: string) => `  ${name.padEnd(19)} ${text}`;
  return [
    'Environment (without --stage), read as npm start reads them:',
    row('DYNAMODB_PORT', `Port of the local store on 127.0.0.1 (default ${DEFAULT_DYNAMODB_PORT}).`),
    row('DYNAMODB_ENDPOINT', 'URL of a store elsewhere; overrides DYNAMODB_PORT.'),
    ...tables.map((table) => row(table.variable, table.what)),
  ].join('\n');
}

/** The stores whose local tables the running command has made sure of, by endpoint. */
const checkedInCommand = new AsyncLocalStorage<Set<string>>();

/**
 * Runs one tool command so that the local tables are made sure of once in it, not once per
 * connection: a command that records an audit entry connects twice, and asked the store 24
 * times about its tables where the first 12 answers hold for the second connection too.
 * Inside another's run (see {@link withLocalTablesChecked}), it shares what that one checked.
 */
export function inOneCommand<T>(run: () => Promise<T>): Promise<T> {
  return checkedInCommand.run(checkedInCommand.getStore() ?? new Set(), run);
}

/**
 * Runs tool commands on stores whose local tables are known to be there (`endpoints`): a test
 * that made a store's tables runs its many commands without each asking the store about all
 * eleven again (12 of a command's some 17 requests). Other stores are checked as usual; what
 * the check does is tested on its own (test/local/local-tables.test.ts, test/tools/cli.test.ts).
 */
export function withLocalTablesChecked<T>(endpoints: readonly string[], run: () => Promise<T>): Promise<T> {
  return checkedInCommand.run(new Set(endpoints), run);
}

/**
 * Connects a tool to tables of the local store at `endpoint`. The store is asked first,
 * so that a store that is not running, or a table that is not there, gets one message
 * that says what to set. Local tables (the default names) are created when missing, and
 * are ACTIVE when this resolves, so the first call on an empty store works.
 */
export async function openLocalTables(
  endpoint: string,
  tables: readonly LocalTable[],
): Promise<DynamoDBDocumentClient> {
  const localNames = Object.values(LOCAL_TABLE_NAMES) as string[];
  let table: LocalTable | undefined;
  try {
    const checked = checkedInCommand.getStore();
    if (tables.some((candidate) => localNames.includes(candidate.tableName)) && !checked?.has(endpoint)) {
      await ensureLocalTablesAt(endpoint);
      checked?.add(endpoint);
    }
    const admin = localStoreClient(endpoint);
    try {
      for (table of tables.filter((candidate) => !localNames.includes(candidate.tableName))) {
        await admin.send(new DescribeTableCommand({ TableName: table.tableName }));
      }
    } finally {
      admin.destroy();
    }
  } catch (error) {
    const code = networkCode(error);
    if (code) {
      throw new Error(
        `Cannot reach the local store at ${endpoint}: ${UNREACHABLE[code]}. Start it with npm start, or point the tools at it as npm start reads it: ${LOCAL_STORE_VARIABLES}.`,
      );
    }
    if (error instanceof ResourceNotFoundException && table) {
      throw new Error(
        `The store at ${endpoint} has no table ${table.tableName} (${table.variable}): create it, or unset ${table.variable} to use the local table.`,
      );
    }
    throw new Error(`The store at ${endpoint} did not answer as DynamoDB does: ${reason(error)}`);
  }
  return createDocumentClient(endpoint);
}

/** Connects a tool to one table of the local store at `endpoint` (see {@link openLocalTables}). */
export function openLocalTable(endpoint: string, table: LocalTable): Promise<DynamoDBDocumentClient> {
  return openLocalTables(endpoint, [table]);
}

/** The tables the keys and projects tools use, each renamed by a variable. */
export const TOOL_TABLES = {
  apiKeys: { variable: 'API_KEYS_TABLE_NAME', what: 'Keys table' },
  projects: { variable: 'PROJECTS_TABLE_NAME', what: 'Projects table' },
  pets: { variable: 'PETS_TABLE_NAME', what: 'Pets table' },
  customDomains: { variable: 'CUSTOM_DOMAINS_TABLE_NAME', what: 'Custom domains table' },
  projectMembers: { variable: 'PROJECT_MEMBERS_TABLE_NAME', what: 'Members table' },
  invitations: { variable: 'INVITATIONS_TABLE_NAME', what: 'Invitations table' },
} as const satisfies Partial<Record<keyof typeof LOCAL_TABLE_NAMES, { variable: string; what: string }>>;

export type ToolTable = keyof typeof TOOL_TABLES;

/** The local table names the tools use: each variable, or the name npm start uses. */
export function toolTableNames(env: NodeJS.ProcessEnv = process.env): Record<ToolTable, string> {
  const names = {} as Record<ToolTable, string>;
  for (const [table, { variable }] of Object.entries(TOOL_TABLES) as [ToolTable, { variable: string }][]) {
    names[table] = env[variable] || LOCAL_TABLE_NAMES[table];
  }
  return names;
}

/** The Environment rows of the tables a tool uses. */
export function toolTablesHelp(tables: readonly ToolTable[]): { variable: string; what: string }[] {
  return tables.map((table) => ({
    variable: TOOL_TABLES[table].variable,
    what: `${TOOL_TABLES[table].what} (default ${LOCAL_TABLE_NAMES[table]}).`,
  }));
}

/** Where the local API is when a tool names a project's address: PORT, as npm start reads it. */
export const LOCAL_API_PORT_VARIABLE = 'PORT';
/** The port of `npm start` when PORT is unset. */
export const DEFAULT_LOCAL_API_PORT = 3000;

/** The local address of a project: `http://<project>.localhost:<PORT>/v1` (`*.localhost` is loopback). */
export function localProjectAddress(project: string, env: NodeJS.ProcessEnv = process.env): string {
  let port: number;
  try {
    port = portFromEnv(LOCAL_API_PORT_VARIABLE, DEFAULT_LOCAL_API_PORT, env);
  } catch (error) {
    throw new UsageError(reason(error));
  }
  // PORT=0: npm start picked a free port that only its output tells.
  return `http://${project}.localhost:${port === 0 ? '<port npm start printed>' : port}/v1`;
}

/**
 * Connects the keys and projects tools to the local store at `endpoint` (by default where
 * npm start runs it): its keys, projects, pets, custom domains and members tables.
 */
export async function connectLocal(
  endpoint: string = toolStoreEndpoint(),
  names: Record<ToolTable, string> = toolTableNames(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<ToolConnection> {
  const documents = await openLocalTables(
    endpoint,
    (Object.keys(TOOL_TABLES) as ToolTable[]).map((table) => ({
      tableName: names[table],
      variable: TOOL_TABLES[table].variable,
    })),
  );
  const customDomains = new CustomDomainRepository(documents, names.customDomains);
  const members = new MemberRepository(documents, names.projectMembers);
  const invitations = new InvitationRepository(documents, names.invitations);
  return {
    keys: new ApiKeyRepository(documents, names.apiKeys),
    projects: new ProjectRepository(documents, names.projects),
    pets: new PetRepository(documents, names.pets),
    domainsOf: (project) => customDomains.countByProject(project),
    removeMembersOf: (project) => members.deleteAllOf(project),
    removeInvitationsOf: (project) => invitations.deleteAllOf(project),
    addressOf: (project) => localProjectAddress(project, env),
    close: () => documents.destroy(),
  };
}
