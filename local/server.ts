import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  API_VERSION_PREFIX,
  AUTHORIZER_MODULE,
  CATCH_ALL,
  type OperationId,
  ROUTES,
} from '../lambda/api/routes';
import { now } from '../lambda/shared/clock';
import { concurrentInvocations } from '../lambda/shared/observability';
import { RUNTIME_ENV } from '../lambda/shared/runtime-env';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from './embedded-dynamodb';
import { type AuthorizerHandler, createGatewayListener, type OperationHandler } from './gateway';
import { startExpiredItemSweeper } from './expired-item-sweeper';
import { ensureLocalTablesAt, LOCAL_TABLE_NAMES, LOCAL_TABLES } from './local-tables';

const HANDLERS_DIR = path.join(__dirname, '..', 'lambda', 'handlers');

/** Local mode's platform domain: project `acme` is served at `http://acme.localhost:<port>/v1`. */
export const LOCAL_PLATFORM_DOMAIN = 'localhost';

/**
 * How long a client may take to send a request: its headers, then the whole of it (at most
 * MAX_BODY_BYTES of body; a longer one is refused at once). Node answers a late one itself, with
 * a bare `408 Request Timeout` and no body, as it does a bare 400 for invalid HTTP; it checks once
 * a second. Node's defaults (60 s, 5 min, every 30 s) let a slow sender hold a connection for minutes.
 */
const SERVER_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  connectionsCheckingInterval: 1_000,
};

export interface LocalApiOptions {
  /** Port of the API on `host`; 0 picks a free one. */
  readonly port: number;
  readonly host?: string;
  /** Use this DynamoDB-compatible store instead of starting the embedded one. */
  readonly dynamodbEndpoint?: string;
  /** Port of the embedded store when it is started; 0 picks a free one. */
  readonly dynamodbPort?: number;
  /** Folder the embedded store keeps its data in; in memory when omitted. */
  readonly dataDir?: string;
  /** Seconds the authorizer caches key lookups (as in AWS). */
  readonly apiKeyCacheSeconds?: number;
}

export interface LocalApi {
  /** e.g. `http://127.0.0.1:3000/v1` */
  readonly baseUrl: string;
  readonly port: number;
  readonly dynamodbEndpoint: string;
  /** The embedded store, when this process started it. */
  readonly store?: EmbeddedDynamoDb;
  /** Stops the API (finishing requests in flight), then the embedded store. */
  close(): Promise<void>;
}

async function importHandler<T>(module: string): Promise<T> {
  const loaded = (await import(path.join(HANDLERS_DIR, module))) as { handler: T };
  return loaded.handler;
}

/**
 * Runs the whole API in this process: the embedded store (unless an endpoint is
 * given), the tables from the shared definitions, and the very Lambda handlers
 * of the route table behind a local API Gateway.
 */
export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const store = options.dynamodbEndpoint
    ? undefined
    : await startEmbeddedDynamoDb({ port: options.dynamodbPort ?? 0, dataDir: options.dataDir });
  const dynamodbEndpoint = options.dynamodbEndpoint ?? store?.endpoint ?? '';
  try {
    // The handlers read their configuration at import, as they do in Lambda.
    process.env[RUNTIME_ENV.dynamodbEndpoint] = dynamodbEndpoint;
    process.env[RUNTIME_ENV.petsTable] = LOCAL_TABLE_NAMES.pets;
    process.env[RUNTIME_ENV.apiKeysTable] = LOCAL_TABLE_NAMES.apiKeys;
    process.env[RUNTIME_ENV.projectsTable] = LOCAL_TABLE_NAMES.projects;
    // Every `<project>.localhost` is a project address (browsers and curl resolve it to loopback).
    process.env[RUNTIME_ENV.platformDomain] = LOCAL_PLATFORM_DOMAIN;
    process.env[RUNTIME_ENV.rateLimitsTable] = LOCAL_TABLE_NAMES.rateLimits;
    process.env[RUNTIME_ENV.cursorKey] ??= 'local-cursor-key';
    process.env[RUNTIME_ENV.apiKeyCacheSeconds] = String(options.apiKeyCacheSeconds ?? 30);
    process.env.AWS_REGION ??= 'local';
    // Request logs go to the console as in Lambda; metrics have no CloudWatch to go to.
    process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

    await ensureLocalTablesAt(dynamodbEndpoint);

    const operations = new Map<OperationId, OperationHandler>();
    for (const route of ROUTES) operations.set(route.operationId, await importHandler(route.handlerModule));
    const catchAll = await importHandler<OperationHandler>(CATCH_ALL.handlerModule);
    const authorizer = await importHandler<AuthorizerHandler>(AUTHORIZER_MODULE);

    // Stands in for DynamoDB TTL, which the embedded store lacks: expired rate-limit counters go hourly.
    const sweeperClient = createDocumentClient(dynamodbEndpoint);
    const stopSweeper = startExpiredItemSweeper(sweeperClient, LOCAL_TABLES, 60 * 60_000, now);

    const listener = createGatewayListener({ operations, catchAll, authorizer });
    // Once closing, every answer closes its connection: server.close() only drops idle ones,
    // and a keep-alive client under load would otherwise hold the server open for ever.
    let closing = false;
    const inFlight = new Set<ServerResponse>();
    const asInvocation = concurrentInvocations();
    const server: Server = createServer(SERVER_TIMEOUTS, (request, response) => {
      if (closing) response.setHeader('Connection', 'close');
      inFlight.add(response);
      response.once('close', () => inFlight.delete(response));
      // Each request is an invocation of its own, with its own log context, as in Lambda.
      asInvocation(() => listener(request, response));
    });
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    return {
      baseUrl: `http://${host}:${port}${API_VERSION_PREFIX}`,
      port,
      dynamodbEndpoint,
      ...(store ? { store } : {}),
      close: async () => {
        closing = true;
        for (const response of inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
        stopSweeper();
        sweeperClient.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await store?.close();
      },
    };
  } catch (error) {
    await store?.close();
    throw error;
  }
}
