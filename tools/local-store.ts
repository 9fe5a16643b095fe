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
} from '../local/local-tables';
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

/**
 * Connects a tool to a table of the local store at `endpoint`. The store is asked first,
 * so that a store that is not running, or a table that is not there, gets one message
 * that says what to set. A local table (the default names) is created when missing, and
 * is ACTIVE when this resolves, so the first call on an empty store works.
 */
export async function openLocalTable(endpoint: string, table: LocalTable): Promise<DynamoDBDocumentClient> {
  const isLocal = (Object.values(LOCAL_TABLE_NAMES) as string[]).includes(table.tableName);
  try {
    if (isLocal) await ensureLocalTablesAt(endpoint);
    else {
      const admin = localStoreClient(endpoint);
      try {
        await admin.send(new DescribeTableCommand({ TableName: table.tableName }));
      } finally {
        admin.destroy();
      }
    }
  } catch (error) {
    const code = networkCode(error);
    if (code) {
      throw new Error(
        `Cannot reach the local store at ${endpoint}: ${UNREACHABLE[code]}. Start it with npm start, or point the tools at it as npm start reads it: ${LOCAL_STORE_VARIABLES}.`,
      );
    }
    if (error instanceof ResourceNotFoundException) {
      throw new Error(
        `The store at ${endpoint} has no table ${table.tableName} (${table.variable}): create it, or unset ${table.variable} to use the local table.`,
      );
    }
    throw new Error(`The store at ${endpoint} did not answer as DynamoDB does: ${reason(error)}`);
  }
  return createDocumentClient(endpoint);
}
