import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { toErrorResponse } from '../lambda/api/error-response';
import { gatewayError } from '../lambda/api/gateway-errors';
import { MAX_BODY_BYTES } from '../lambda/api/limits';
import { CATCH_ALL, type OperationId } from '../lambda/api/routes';
import { log } from '../lambda/shared/observability';
import { API_FUNCTION_TIMEOUT_SECONDS } from '../lambda/shared/runtime-env';
import { matchRoute } from './route-matcher';

export type OperationHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
) => Promise<APIGatewayAuthorizerResult>;

export interface LocalGatewayOptions {
  /** The exported Lambda handler of each operation. */
  readonly operations: ReadonlyMap<OperationId, OperationHandler>;
  /** The exported Lambda handler of the catch-all (unknown paths and methods under the prefix). */
  readonly catchAll: OperationHandler;
  /** The exported Lambda authorizer. */
  readonly authorizer: AuthorizerHandler;
  /** Stage name put into events (the path carries no stage prefix locally, as on a custom domain). */
  readonly stage?: string;
  /** Milliseconds a function may run before it is cut off, as Lambda does. */
  readonly functionTimeoutMs: number;
}

const ACCOUNT_ID = '000000000000';
const API_ID = 'local';

/** The body; or over the limit; or cut off, the connection gone before the body was whole. */
type ReadBody = { kind: 'read'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'cut-off' };

/**
 * Reads the body, but never more than the edge accepts: past MAX_BODY_BYTES the edge answers 413
 * (the WAF rule in AWS), at once when Content-Length announces more, else as soon as the bytes
 * read pass the limit. The request is never destroyed (that would reset the connection before the
 * client could read the 413): what the client still sends is dropped as it arrives.
 */
export function readBody(request: IncomingMessage): Promise<ReadBody> {
  // Node has already refused a Content-Length that is not one decimal number.
  if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
    return Promise.resolve({ kind: 'too-large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      // The stream goes on flowing with no listener: the rest is dropped.
      request.off('data', onData);
      resolve({ kind: 'too-large' });
    };
    request.on('data', onData);
    request.once('end', () => resolve({ kind: 'read', bytes: Buffer.concat(chunks) }));
    // The client went away, or sent invalid HTTP (Node answers that itself), or took too long (Node's 408).
    request.once('error', () => resolve({ kind: 'cut-off' }));
    request.once('close', () => resolve({ kind: 'cut-off' }));
  });
}

/** How long a refused client may go on sending before its connection is dropped anyway. */
const LINGER_MS = 5_000;

/**
 * Closes the connection once the answer is out, without resetting it. Node destroys the socket
 * as soon as a `Connection: close` answer is flushed; a client still sending then gets a reset,
 * which can reach it before it has read the answer. Instead the socket only half-closes, what
 * still arrives is dropped, and it closes when the client closes its side (or after LINGER_MS).
 */
export function closeAfterAnswer(socket: Socket): void {
  // Node calls destroySoon() once the last answer on the connection is flushed.
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}

/** A map from names a client chose: `__proto__` or `constructor` must be plain keys, not Object.prototype's. */
function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export function multiValueHeaders(request: IncomingMessage): Record<string, string[]> {
  const headers = emptyRecord<string[]>();
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    const value = request.rawHeaders[index + 1] ?? '';
    const existing = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase()) ?? name;
    headers[existing] = [...(headers[existing] ?? []), value];
  }
  return headers;
}

export function lastValues(multi: Record<string, string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values.at(-1) ?? '']));
}

export function queryParameters(url: URL): {
  single: Record<string, string> | null;
  multi: Record<string, string[]> | null;
} {
  const multi = emptyRecord<string[]>();
  for (const [name, value] of url.searchParams) multi[name] = [...(multi[name] ?? []), value];
  if (Object.keys(multi).length === 0) return { single: null, multi: null };
  return { single: lastValues(multi), multi };
}

/**
 * The request target as a URL. A target that starts with `/` is a path, even `//x/y`
 * (a URL parser would read `x` as a host, and throw on one that is not valid);
 * undefined when it cannot be parsed at all.
 */
export function requestUrl(target: string): URL | undefined {
  try {
    return new URL(target.startsWith('/') ? `http://localhost${target}` : target, 'http://localhost');
  } catch {
    return undefined;
  }
}

/** The local-mode variable that sets how long a local function may run (doc/operations.md). */
export const FUNCTION_TIMEOUT_VARIABLE = 'FUNCTION_TIMEOUT_SECONDS';

/**
 * Milliseconds a local function may run before it is cut off, as Lambda cuts one off: the
 * stack's timeout of the API's functions unless FUNCTION_TIMEOUT_SECONDS says otherwise (longer
 * to step through a handler in a debugger; the tests give a loaded machine ten minutes).
 */
export function functionTimeoutMsFrom(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[FUNCTION_TIMEOUT_VARIABLE];
  const seconds = text === undefined ? API_FUNCTION_TIMEOUT_SECONDS : Number(text);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600) {
    throw new Error(
      `${FUNCTION_TIMEOUT_VARIABLE}=${JSON.stringify(text)}: set it to a whole number of seconds from 1 to 3600.`,
    );
  }
  return seconds * 1000;
}

/** A Lambda context good enough for handlers that only read the request id and the remaining time. */
export function lambdaContext(functionName: string, requestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:${ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export function send(response: ServerResponse, result: APIGatewayProxyResult, requestId: string): void {
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  const body = result.isBase64Encoded
    ? Buffer.from(result.body, 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  // A 204 or 304 has no body, and no Content-Length either (RFC 9110 §8.6).
  if (result.statusCode !== 204 && result.statusCode !== 304) headers['Content-Length'] = String(body.length);
  response.writeHead(result.statusCode, headers);
  response.end(body);
}

export function isProxyResult(value: unknown): value is APIGatewayProxyResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger((value as APIGatewayProxyResult).statusCode)
  );
}

/**
 * Runs a proxy integration's function as API Gateway does: its answer, or, when it throws
 * or answers something that is not a proxy result, the gateway's own 502.
 */
export async function invokeProxy(
  fn: OperationHandler,
  event: APIGatewayProxyEvent,
  functionName: string,
  requestId: string,
  timeoutMs: number,
): Promise<APIGatewayProxyResult> {
  let result: unknown;
  try {
    result = await fn(event, lambdaContext(functionName, requestId, timeoutMs));
  } catch {
    result = undefined;
  }
  return isProxyResult(result) ? result : toErrorResponse(gatewayError('INTEGRATION_FAILURE'));
}

/**
 * An HTTP listener that behaves as the deployed API Gateway stage does: the edge's size
 * limit, routing from the route table (an operation, the catch-all for any other path or
 * method under the prefix, 404 outside it), the REQUEST authorizer, then the Lambda
 * handler with a REST proxy event, and Error bodies for everything the gateway itself answers.
 */
export function createGatewayListener({
  operations,
  catchAll,
  authorizer,
  stage = 'local',
  functionTimeoutMs,
}: LocalGatewayOptions): RequestListener {
  return async (request, response) => {
    const requestId = randomUUID();
    const reply = (result: APIGatewayProxyResult) => send(response, result, requestId);
    try {
      const body = await readBody(request);
      if (body.kind === 'cut-off') {
        // No one is left to answer, and in AWS no function would have run: a line of the request's own.
        log().info('request cut off before its body arrived', {
          correlationId: requestId,
          method: request.method,
          path: requestUrl(request.url ?? '/')?.pathname,
        });
        return;
      }
      if (body.kind === 'too-large') {
        const refusal = toErrorResponse(gatewayError('REQUEST_TOO_LARGE'));
        closeAfterAnswer(request.socket);
        reply({ ...refusal, headers: { ...refusal.headers, Connection: 'close' } });
        return;
      }
      const { bytes } = body;
      const method = (request.method ?? 'GET').toUpperCase();
      const url = requestUrl(request.url ?? '/');
      const match = url ? matchRoute(method, url.pathname) : ({ kind: 'outside-prefix' } as const);
      if (!url || match.kind === 'outside-prefix') {
        reply(toErrorResponse(gatewayError('MISSING_AUTHENTICATION_TOKEN')));
        return;
      }
      const functionName = match.kind === 'route' ? match.route.operationId : CATCH_ALL.name;
      const operation = match.kind === 'route' ? operations.get(match.route.operationId) : catchAll;
      if (!operation) throw new Error(`No handler loaded for ${functionName}`);

      // API Gateway sets X-Forwarded-Proto itself; a client's own would otherwise win (Location: javascript://…).
      const multiHeaders = multiValueHeaders(request);
      for (const name of Object.keys(multiHeaders)) {
        if (name.toLowerCase() === 'x-forwarded-proto') delete multiHeaders[name];
      }
      const headers = lastValues(multiHeaders);
      const query = queryParameters(url);
      const sourceIp = request.socket.remoteAddress ?? '127.0.0.1';
      const host = headers.host ?? headers.Host ?? 'localhost';
      const methodArn = `arn:aws:execute-api:local:${ACCOUNT_ID}:${API_ID}/${stage}/${method}${match.resource}`;
      const requestContext = {
        accountId: ACCOUNT_ID,
        apiId: API_ID,
        domainName: host,
        domainPrefix: host.split('.')[0] ?? host,
        httpMethod: method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        requestId,
        requestTime: new Date().toUTCString(),
        requestTimeEpoch: Date.now(),
        resourceId: 'local',
        resourcePath: match.resource,
        stage,
        identity: { sourceIp, userAgent: headers['user-agent'] ?? headers['User-Agent'] ?? null },
      };
      const common = {
        resource: match.resource,
        path: url.pathname,
        httpMethod: method,
        headers: { ...headers, 'X-Forwarded-Proto': 'http' },
        multiValueHeaders: { ...multiHeaders, 'X-Forwarded-Proto': ['http'] },
        queryStringParameters: query.single,
        multiValueQueryStringParameters: query.multi,
        pathParameters: match.pathParameters,
        stageVariables: null,
      };

      let authorization: APIGatewayAuthorizerResult;
      try {
        authorization = await authorizer({
          ...common,
          type: 'REQUEST',
          methodArn,
          requestContext,
        } as unknown as APIGatewayRequestAuthorizerEvent);
      } catch {
        reply(toErrorResponse(gatewayError('AUTHORIZER_FAILURE')));
        return;
      }
      const allowed = authorization.policyDocument.Statement.some(
        (statement) =>
          statement.Effect === 'Allow' &&
          'Resource' in statement &&
          [statement.Resource].flat().includes(methodArn),
      );
      if (!allowed) {
        reply(toErrorResponse(gatewayError('ACCESS_DENIED')));
        return;
      }
      const utf8 = bytes.length === 0 ? null : new TextDecoder('utf-8', { fatal: false }).decode(bytes);
      const binary = utf8 !== null && !Buffer.from(utf8, 'utf8').equals(bytes);
      const event = {
        ...common,
        requestContext: {
          ...requestContext,
          authorizer: {
            ...authorization.context,
            principalId: authorization.principalId,
            integrationLatency: 0,
          },
        },
        body: binary ? bytes.toString('base64') : utf8,
        isBase64Encoded: binary,
      } as unknown as APIGatewayProxyEvent;

      reply(await invokeProxy(operation, event, functionName, requestId, functionTimeoutMs));
    } catch (error) {
      if (!response.headersSent) reply(toErrorResponse(error));
      else response.destroy();
    }
  };
}
