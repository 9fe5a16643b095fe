import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { CONSOLE_API_PREFIX } from '../lambda/api/console-routes';
import { toErrorResponse } from '../lambda/api/error-response';
import { gatewayError } from '../lambda/api/gateway-errors';
import { ConsoleSessions } from '../lambda/domain/console-session';
import type { CustomDomains } from '../lambda/domain/custom-domains';
import { ProjectKeys } from '../lambda/domain/project-keys';
import type { RateLimiter } from '../lambda/domain/rate-limiter';
import type { ApiLambdaHandler } from '../lambda/middleware/api-handler';
import type { ConsoleStackDependencies } from '../lambda/middleware/console-handler';
import { consoleApi } from '../lambda/operations/console';
import { now } from '../lambda/shared/clock';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { ConsoleSessionRepository } from '../lambda/store/console-session-repository';
import { ProjectRepository } from '../lambda/store/project-repository';
import { RateLimitStore } from '../lambda/store/rate-limit-store';
import {
  closeAfterAnswer,
  invokeProxy,
  lastValues,
  multiValueHeaders,
  type OperationHandler,
  queryParameters,
  readBody,
  requestUrl,
  send,
} from './gateway';
import { LOCAL_TABLE_NAMES } from './local-tables';
import type { SandboxDns } from './sandbox-dns';
import { SANDBOX_RECORDS_PATH, sandboxRecordsApi } from './sandbox-records';

export { SANDBOX_RECORDS_PATH };

/**
 * Local mode's front of the console's API (`/console/api/…` on the API's port): the request as
 * a REST proxy event to the console function, as its integration would pass it in AWS. Local
 * mode alone also answers `/console/api/sandbox/records`: the sandbox DNS zone, where a tenant's
 * records are created (`npm run domains -- sandbox-record`), with the console's credentials
 * (local/sandbox-records.ts).
 */

const FUNCTION_NAME = 'console';
const SANDBOX_FUNCTION_NAME = 'sandbox-records';

/**
 * The console's origins in local mode: the page is served on the API's port, reached as
 * localhost or as the loopback address. A project address (`http://dev.localhost:<port>`) is
 * same-site with them but another origin, so it is refused.
 */
export function localConsoleOrigins(port: number): string[] {
  return [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
}

/** The hosts of those origins (`localhost:<port>`, `127.0.0.1:<port>`): the console answers at these alone. */
export function localConsoleHosts(port: number): string[] {
  return localConsoleOrigins(port).map((origin) => new URL(origin).host);
}

/** What local mode gives its console function. */
export interface LocalConsoleInput {
  readonly client: DynamoDBDocumentClient;
  /** The domains service of local mode's custom domains. */
  readonly domains: CustomDomains;
  /** The limiter the API shares (sign-ins count with anonymous API calls per client IP). */
  readonly limiter: RateLimiter;
  /** The API's port: the console's origins and the projects' addresses are on it. */
  readonly port: number;
  /** The sessions' clock (tests move it to end sessions). @default the service clock */
  readonly sessionClock?: () => number;
}

/**
 * The console function composed as lambda/handlers/console.ts composes it in AWS, over the
 * local tables: projects are served at `http://<name>.localhost:<port>/v1`.
 */
export function localConsoleApi(input: LocalConsoleInput): ApiLambdaHandler {
  const { client, domains, port } = input;
  const stack = localConsoleStack(input);
  return consoleApi({
    ...stack,
    consoleHosts: localConsoleHosts(port),
    keys: new ProjectKeys({
      keys: new ApiKeyRepository(client, LOCAL_TABLE_NAMES.apiKeys),
      projects: stack.projects,
      clock: () => new Date(now()),
    }),
    counters: new RateLimitStore(client, LOCAL_TABLE_NAMES.rateLimits),
    projectAddress: (name) => `http://${name}.localhost:${port}/v1`,
    // The limiter's clock: usage is read in the windows it counts in.
    clock: now,
    domains,
  });
}

/** What every console stack of local mode shares: the projects, the sessions, the console's origins, the limiter. */
function localConsoleStack({
  client,
  limiter,
  port,
  sessionClock = now,
}: Omit<LocalConsoleInput, 'domains'>): ConsoleStackDependencies & { projects: ProjectRepository } {
  const projects = new ProjectRepository(client, LOCAL_TABLE_NAMES.projects);
  return {
    projects,
    limiter,
    sessions: new ConsoleSessions({
      store: new ConsoleSessionRepository(client, LOCAL_TABLE_NAMES.consoleSessions),
      projects,
      clock: sessionClock,
    }),
    consoleOrigins: localConsoleOrigins(port),
  };
}

/**
 * The sandbox DNS's records endpoint, over the same stack as the console function: the same
 * credentials, cross-site checks and counting.
 */
export function localSandboxRecordsApi(
  input: Omit<LocalConsoleInput, 'domains'> & { readonly dns: SandboxDns; readonly platformDomain: string },
): ApiLambdaHandler {
  return sandboxRecordsApi({
    dns: input.dns,
    platformDomain: input.platformDomain,
    stack: localConsoleStack(input),
  });
}

/** The listener for every request under the console prefix. */
export function createConsoleListener(
  consoleFunction: OperationHandler,
  sandboxFunction?: OperationHandler,
): RequestListener {
  return async (request, response) => {
    const requestId = randomUUID();
    const reply = (result: APIGatewayProxyResult) => send(response, result, requestId);
    try {
      const body = await readBody(request);
      if (body.kind === 'cut-off') return;
      if (body.kind === 'too-large') {
        closeAfterAnswer(request.socket);
        const refusal = toErrorResponse(gatewayError('REQUEST_TOO_LARGE'));
        reply({ ...refusal, headers: { ...refusal.headers, Connection: 'close' } });
        return;
      }
      const method = (request.method ?? 'GET').toUpperCase();
      const url = requestUrl(request.url ?? '/');
      if (!url) {
        reply(toErrorResponse(gatewayError('MISSING_AUTHENTICATION_TOKEN')));
        return;
      }
      const multiHeaders = multiValueHeaders(request);
      const headers = lastValues(multiHeaders);
      const query = queryParameters(url);
      const bytes = body.bytes;
      const utf8 = bytes.length === 0 ? null : new TextDecoder('utf-8', { fatal: false }).decode(bytes);
      const binary = utf8 !== null && !Buffer.from(utf8, 'utf8').equals(bytes);
      const event = {
        resource: `${CONSOLE_API_PREFIX}/{proxy+}`,
        path: url.pathname,
        httpMethod: method,
        headers,
        multiValueHeaders: multiHeaders,
        queryStringParameters: query.single,
        multiValueQueryStringParameters: query.multi,
        pathParameters: null,
        stageVariables: null,
        requestContext: {
          domainName: headers.host ?? headers.Host ?? 'localhost',
          httpMethod: method,
          path: url.pathname,
          requestId,
          requestTimeEpoch: Date.now(),
          stage: 'local',
          identity: { sourceIp: request.socket.remoteAddress ?? '127.0.0.1' },
        },
        body: binary ? bytes.toString('base64') : utf8,
        isBase64Encoded: binary,
      } as unknown as APIGatewayProxyEvent;
      const sandbox = sandboxFunction && url.pathname === SANDBOX_RECORDS_PATH;
      reply(
        await invokeProxy(
          sandbox ? sandboxFunction : consoleFunction,
          event,
          sandbox ? SANDBOX_FUNCTION_NAME : FUNCTION_NAME,
          requestId,
        ),
      );
    } catch (error) {
      if (!response.headersSent) reply(toErrorResponse(error));
      else response.destroy();
    }
  };
}
