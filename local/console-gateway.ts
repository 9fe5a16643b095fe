import type { SelfServiceSettings } from '../lambda/core/self-service-settings';
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { CONSOLE_API_PREFIX } from '../lambda/api/console-routes';
import type { ConsoleSignInSettings, InvitationSettings } from '../lambda/composition/console';
import type { Service } from '../lambda/composition/service';
import { toErrorResponse } from '../lambda/api/error-response';
import { gatewayError } from '../lambda/api/gateway-errors';
import type { CustomDomains } from '../lambda/core/custom-domains/custom-domains';
import type { ApiLambdaHandler } from '../lambda/middleware/api-handler';
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

/**
 * The console function composed as lambda/handlers/console.ts composes it in AWS, from the
 * service's local ports: projects are served at `http://<name>.localhost:<port>/v1`, the page
 * at the API's port.
 */
export function localConsoleApi(
  service: Service,
  domains: CustomDomains,
  port: number,
  signIn: ConsoleSignInSettings | undefined,
  mailer: InvitationSettings['mailer'],
  selfService?: SelfServiceSettings,
): ApiLambdaHandler {
  return service.console(
    {
      consoleOrigins: localConsoleOrigins(port),
      consoleHosts: localConsoleHosts(port),
      projectAddress: (name) => `http://${name}.localhost:${port}/v1`,
      ...(signIn ? { signIn } : {}),
      // Links name localhost, where the sign-in's callback (and so the invitation's cookie) is.
      invitations: { mailer, linkOf: (token) => `http://localhost:${port}/console/#invitation=${token}` },
      ...(selfService ? { selfService } : {}),
    },
    domains,
  );
}

/**
 * The sandbox DNS's records endpoint, over the same stack as the console function: the same
 * credentials, cross-site checks and counting.
 */
export function localSandboxRecordsApi(
  service: Service,
  port: number,
  dns: SandboxDns,
  platformDomain: string,
): ApiLambdaHandler {
  return sandboxRecordsApi({
    dns,
    platformDomain,
    stack: service.consoleStack({ consoleOrigins: localConsoleOrigins(port) }),
  });
}

/**
 * The listener for every request under the console prefix; each function may run
 * `functionTimeoutMs` before it is cut off.
 */
export function createConsoleListener(
  functionTimeoutMs: number,
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
          functionTimeoutMs,
        ),
      );
    } catch (error) {
      if (!response.headersSent) reply(toErrorResponse(error));
      else response.destroy();
    }
  };
}
