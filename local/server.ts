import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isConsoleHost, isConsolePath } from '../lambda/api/console-routes';
import { API_VERSION_PREFIX, type OperationId, ROUTES } from '../lambda/api/routes';
import { ORIGIN_SECRET_HEADER } from '../lambda/core/edge-request';
import { composeService, type Service } from '../lambda/composition/service';
import type { RateLimiter } from '../lambda/core/rate-limiter';
import { type SelfServiceSettings, selfServiceSettingsFrom } from '../lambda/core/self-service-settings';
import { now } from '../lambda/shared/clock';
import { concurrentInvocations } from '../lambda/shared/observability';
import { optionalEnv, RUNTIME_ENV } from '../lambda/shared/runtime-env';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import type { ConsoleBuild } from '../console/build';
import {
  createConsoleListener,
  localConsoleApi,
  localConsoleHosts,
  localSandboxRecordsApi,
  SANDBOX_RECORDS_PATH,
} from './console-gateway';
import { consoleSite, isConsolePagePath } from './console-site';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from './embedded-dynamodb';
import {
  createGatewayListener,
  functionTimeoutMsFrom,
  type LocalGatewayOptions,
  type OperationHandler,
  requestUrl,
} from './gateway';
import { startExpiredItemSweeper } from './expired-item-sweeper';
import { type RepeatTimer, startLocalUsageTop } from './usage-top-job';
import { type LocalDomains, type LocalDomainsOptions, startLocalDomains } from './local-domains';
import { type LocalTablePorts, localTablePorts } from './local-ports';
import { type LocalOutbox, localOutbox, outboxFolder } from './invitation-outbox';
import { type LocalSignIn, startLocalSignIn } from './local-sign-in';
import type { LocalOidcProvider } from './oidc-provider';
import { ensureLocalTablesAt, LOCAL_TABLE_NAMES, LOCAL_TABLES } from './local-tables';
import { scanProjectNames, UsageTopStore } from '../lambda/store/usage-top-store';

/** Local mode's platform domain: project `acme` is served at `http://acme.localhost:<port>/v1`. */
export const LOCAL_PLATFORM_DOMAIN = 'localhost';

/**
 * How long a client may take to send a request: its headers, then the whole of it (at most
 * MAX_BODY_BYTES of body; a longer one is refused at once). Node answers a late one itself, with
 * a bare `408 Request Timeout` and no body, as it does a bare 400 for invalid HTTP; it checks once
 * a second. Node's defaults (60 s, 5 min, every 30 s) let a slow sender hold a connection for minutes.
 * An idle connection is kept longer than clients keep theirs (undici, Node's fetch: 4 s), so a
 * client never reuses one the server is closing at that moment: with Node's 5 s a busy machine's
 * 500 reads after 500 creates met ECONNRESET.
 */
const SERVER_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 65_000,
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
  /**
   * Milliseconds each function may run before it is cut off, as in Lambda.
   * @default from FUNCTION_TIMEOUT_SECONDS, else the stack's timeout of the API's functions (10 s)
   */
  readonly functionTimeoutMs?: number;
  /** Folder the embedded store keeps its data in; in memory when omitted. */
  readonly dataDir?: string;
  /** Seconds the authorizer caches key lookups (as in AWS). */
  readonly apiKeyCacheSeconds?: number;
  /**
   * The rate limiter every operation shares.
   * @default one over the local rate-limit table
   */
  readonly limiter?: RateLimiter;
  /**
   * Custom domains: the sandbox DNS, the HTTPS edge, the certificate authority and the
   * console's API (`/console/api/…`) on the API's port. None when omitted.
   */
  readonly customDomains?: LocalDomainsOptions;
  /** The built console page (console/build.ts), served at `/console/`; its API needs `customDomains`. */
  readonly consoleSite?: ConsoleBuild;
  /** The console sessions' clock (tests move it to end sessions). @default the service clock */
  readonly consoleSessionClock?: () => number;
  /**
   * The local OpenID provider (issue 26) on this loopback port (0 picks one), and the console's
   * sign-in through it; it needs `customDomains` (the console's API). None when omitted.
   */
  readonly openIdProviderPort?: number;
  /**
   * What repeats the daily ranking of the busiest projects (issue 29), run at start and hourly.
   * @default Node's interval
   */
  readonly usageTopTimer?: RepeatTimer;
  /**
   * People's own projects (issue 27).
   * @default from SELF_SERVICE_PROJECTS and SELF_SERVICE_PROJECT_CAP (on, 2,000)
   */
  readonly selfService?: SelfServiceSettings;
}

export interface LocalApi {
  /** e.g. `http://127.0.0.1:3000/v1` */
  readonly baseUrl: string;
  readonly port: number;
  readonly dynamodbEndpoint: string;
  /** The embedded store, when this process started it. */
  readonly store?: EmbeddedDynamoDb;
  /** Custom domains, when asked for: the sandbox DNS, the edge, the authority and the service. */
  readonly domains?: LocalDomains;
  /** The local OpenID provider, when asked for: its issuer and development people. */
  readonly openIdProvider?: LocalOidcProvider;
  /** Invitations sent (issue 27): `<data dir>/outbox/`, and this run's in memory. */
  readonly outbox: LocalOutbox;
  /** Stops the API (finishing requests in flight), then the embedded store. */
  close(): Promise<void>;
}

/**
 * Local mode's composition: the service as its Lambda functions compose it (lambda/composition/),
 * over the local tables, with one limiter (and one clock) that all of its parts share, as one
 * process serves them all. With custom domains, the authorizer believes the local HTTPS edge as
 * in AWS: requests carrying this run's origin secret, about their viewer and their custom domain,
 * checked against the local table with the same short cache (on the domains' clock, which tests move).
 */
function composeLocalService(
  ports: LocalTablePorts,
  options: LocalApiOptions,
  originSecret: string | undefined,
): Service {
  const edge =
    originSecret === undefined
      ? undefined
      : {
          originSecrets: async () => [originSecret],
          customDomains: ports.customDomains,
          clock: options.customDomains?.clock ?? now,
        };
  return composeService(
    {
      ...ports,
      ...(edge ? { edge } : {}),
      ...(options.consoleSessionClock ? { sessionClock: options.consoleSessionClock } : {}),
    },
    {
      cursorKey: optionalEnv(RUNTIME_ENV.cursorKey) ?? 'local-cursor-key',
      cacheSeconds: options.apiKeyCacheSeconds,
      // Every `<project>.localhost` is a project address (browsers and curl resolve it to loopback).
      platformDomain: LOCAL_PLATFORM_DOMAIN,
    },
    options.limiter ? { limiter: options.limiter } : {},
  );
}

/** The gateway's functions: each operation of the route table, the catch-all and the authorizer. */
function gatewayFunctions(service: Service): Omit<LocalGatewayOptions, 'stage' | 'functionTimeoutMs'> {
  const operations = new Map<OperationId, OperationHandler>(
    ROUTES.map((route) => [route.operationId, service.operations[route.operationId]]),
  );
  return { operations, catchAll: service.catchAll, authorizer: service.authorizer };
}

/**
 * Runs the whole API in this process: the embedded store (unless an endpoint is
 * given), the tables from the shared definitions, and the operations of the route
 * table, composed as in Lambda, behind a local API Gateway.
 */
export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const store = options.dynamodbEndpoint
    ? undefined
    : await startEmbeddedDynamoDb({ port: options.dynamodbPort ?? 0, dataDir: options.dataDir });
  const dynamodbEndpoint = options.dynamodbEndpoint ?? store?.endpoint ?? '';
  try {
    process.env.AWS_REGION ??= 'local';
    // Request logs go to the console as in Lambda; metrics have no CloudWatch to go to.
    process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

    await ensureLocalTablesAt(dynamodbEndpoint);

    const client = createDocumentClient(dynamodbEndpoint);
    // Stands in for DynamoDB TTL, which the embedded store lacks: expired rate-limit counters go hourly.
    const stopSweeper = startExpiredItemSweeper(client, LOCAL_TABLES, 60 * 60_000, now);
    // Stands in for the daily schedule in AWS: yesterday's `top` item, written at start and hourly.
    const usageTop = startLocalUsageTop({
      ports: new UsageTopStore(client, LOCAL_TABLE_NAMES.rateLimits, () =>
        scanProjectNames(client, LOCAL_TABLE_NAMES.projects),
      ),
      clock: now,
      ...(options.usageTopTimer ? { timer: options.usageTopTimer } : {}),
    });
    await usageTop.started;

    // With custom domains, the edge and the authorizer share a secret of this run, so that the
    // origin secret's path is the one requests take locally too.
    const originSecret = options.customDomains ? randomBytes(32).toString('hex') : undefined;
    const ports = localTablePorts(client, now);
    const service = composeLocalService(ports, options, originSecret);
    const functionTimeoutMs = options.functionTimeoutMs ?? functionTimeoutMsFrom(process.env);
    const listener = createGatewayListener({ ...gatewayFunctions(service), functionTimeoutMs });
    let consoleListener: ReturnType<typeof createConsoleListener> | undefined;
    const site = options.consoleSite ? consoleSite(options.consoleSite) : undefined;
    // Known once listening: the page is served at these hosts alone, as in AWS at console.<platform domain>.
    let consoleHosts: readonly string[] = [];
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
      const pathname = (request.url ?? '/').split('?')[0] ?? '/';
      const atConsole = isConsoleHost(request.headers.host, consoleHosts);
      // The console function refuses other hosts itself, as in AWS, where API Gateway routes
      // its paths at every host; the sandbox DNS, local mode's alone, is refused here.
      const sandboxRecords = requestUrl(request.url ?? '/')?.pathname === SANDBOX_RECORDS_PATH;
      if (consoleListener && isConsolePath(pathname) && (atConsole || !sandboxRecords)) {
        asInvocation(() => consoleListener?.(request, response));
      } else if (site && isConsolePagePath(pathname) && atConsole) {
        // The page is static files (S3 behind CloudFront in AWS): no function, no invocation.
        // At a project's address (a custom domain arrives there too) it is a path the API lacks.
        site(request, response);
      } else {
        asInvocation(() => listener(request, response));
      }
    });
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    consoleHosts = localConsoleHosts(port);
    let domains: LocalDomains | undefined;
    let openIdProvider: LocalOidcProvider | undefined;
    const outbox = localOutbox(options.dataDir ? outboxFolder(options.dataDir) : undefined);
    if (options.customDomains) {
      try {
        domains = await startLocalDomains({
          ports,
          upstream: `http://${host}:${port}`,
          platformDomain: LOCAL_PLATFORM_DOMAIN,
          ...(options.dataDir ? { dataDir: options.dataDir } : {}),
          options: options.customDomains,
          ...(originSecret ? { originHeaders: { [ORIGIN_SECRET_HEADER]: originSecret } } : {}),
        });
      } catch (error) {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        throw error;
      }
      let signIn: LocalSignIn | undefined;
      if (options.openIdProviderPort !== undefined) {
        try {
          signIn = await startLocalSignIn(port, options.openIdProviderPort);
        } catch (error) {
          await domains.close();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          throw error;
        }
        openIdProvider = signIn.provider;
      }
      consoleListener = createConsoleListener(
        functionTimeoutMs,
        localConsoleApi(
          service,
          domains.service,
          port,
          signIn?.settings,
          outbox,
          options.selfService ?? selfServiceSettingsFrom(process.env),
        ),
        localSandboxRecordsApi(service, port, domains.dns, LOCAL_PLATFORM_DOMAIN),
      );
    }
    return {
      baseUrl: `http://${host}:${port}${API_VERSION_PREFIX}`,
      port,
      dynamodbEndpoint,
      ...(store ? { store } : {}),
      ...(domains ? { domains } : {}),
      ...(openIdProvider ? { openIdProvider } : {}),
      outbox,
      close: async () => {
        closing = true;
        await openIdProvider?.close();
        await domains?.close();
        for (const response of inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
        stopSweeper();
        usageTop.stop();
        client.destroy();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // server.close() ends idle connections only: one a client has begun a request on, and not
        // sent whole, would hold it open. Once every answer in flight is written, none is owed.
        await Promise.all([...inFlight].map((response) => once(response, 'close')));
        server.closeAllConnections();
        await closed;
        await store?.close();
      },
    };
  } catch (error) {
    await store?.close();
    throw error;
  }
}
