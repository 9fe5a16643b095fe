import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { gatewayError, methodNotAllowedMessage, statusOf } from '../lambda/api/gateway-errors';
import { headerValue, jsonResponse } from '../lambda/api/http';
import { MAX_BODY_BYTES } from '../lambda/api/limits';
import type { OperationId } from '../lambda/api/routes';
import { toErrorResponse } from '../lambda/middleware/error-responses';
import { gatewayAcceptsBody } from './request-validation';
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
  /** The exported Lambda authorizer. */
  readonly authorizer: AuthorizerHandler;
  /** Stage name put into events (the path carries no stage prefix locally, as on a custom domain). */
  readonly stage?: string;
}

const ACCOUNT_ID = '000000000000';
const API_ID = 'local';

interface ReadBody {
  bytes: Buffer;
  tooLarge: boolean;
}

/** Reads the body, but never more than the edge accepts: past MAX_BODY_BYTES the edge answers 413 (the WAF rule in AWS). */
async function readBody(request: IncomingMessage): Promise<ReadBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to the end, keeping nothing past the limit: leaving the loop early would destroy the
  // request, and with it the connection, before the client could read the 413.
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) return { bytes: Buffer.alloc(0), tooLarge: true };
  return { bytes: Buffer.concat(chunks), tooLarge: false };
}

/** A map from names a client chose: `__proto__` or `constructor` must be plain keys, not Object.prototype's. */
function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function multiValueHeaders(request: IncomingMessage): Record<string, string[]> {
  const headers = emptyRecord<string[]>();
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    const value = request.rawHeaders[index + 1] ?? '';
    const existing = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase()) ?? name;
    headers[existing] = [...(headers[existing] ?? []), value];
  }
  return headers;
}

function lastValues(multi: Record<string, string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values.at(-1) ?? '']));
}

function queryParameters(url: URL): {
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
function requestUrl(target: string): URL | undefined {
  try {
    return new URL(target.startsWith('/') ? `http://localhost${target}` : target, 'http://localhost');
  } catch {
    return undefined;
  }
}

/** A Lambda context good enough for handlers that only read the request id and the remaining time. */
function lambdaContext(functionName: string, requestId: string): Context {
  const deadline = Date.now() + 10_000;
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

function send(response: ServerResponse, result: APIGatewayProxyResult, requestId: string): void {
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  const body = result.isBase64Encoded
    ? Buffer.from(result.body, 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  headers['Content-Length'] = String(body.length);
  response.writeHead(result.statusCode, headers);
  response.end(body);
}

function isProxyResult(value: unknown): value is APIGatewayProxyResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger((value as APIGatewayProxyResult).statusCode)
  );
}

/**
 * An HTTP listener that behaves as the deployed API Gateway stage does: the
 * edge's size limit, 404/405 from the route table, the REQUEST authorizer, the
 * request model, then the operation's Lambda handler with a REST proxy event, and Error bodies for
 * everything the gateway itself answers.
 */
export function createGatewayListener({
  operations,
  authorizer,
  stage = 'local',
}: LocalGatewayOptions): RequestListener {
  return async (request, response) => {
    const requestId = randomUUID();
    const reply = (result: APIGatewayProxyResult) => send(response, result, requestId);
    try {
      const { bytes, tooLarge } = await readBody(request);
      if (tooLarge) {
        reply(toErrorResponse(gatewayError('REQUEST_TOO_LARGE')));
        request.resume();
        return;
      }
      const method = (request.method ?? 'GET').toUpperCase();
      const url = requestUrl(request.url ?? '/');
      const match = url ? matchRoute(method, url.pathname) : ({ kind: 'not-found' } as const);
      if (!url || match.kind === 'not-found') {
        reply(toErrorResponse(gatewayError('MISSING_AUTHENTICATION_TOKEN')));
        return;
      }
      if (match.kind === 'method-not-allowed') {
        // In AWS the ANY mock method of the resource answers this, without any Lambda.
        const allow = match.allow.join(', ');
        const body = {
          code: 'method_not_allowed',
          message: methodNotAllowedMessage(allow),
          status: statusOf('method_not_allowed'),
        };
        reply(jsonResponse(body.status, body, { Allow: allow }));
        return;
      }
      const operation = operations.get(match.route.operationId);
      if (!operation) throw new Error(`No handler loaded for ${match.route.operationId}`);

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
      // API Gateway validates the body against the method's model after the authorizer.
      const { requestBody } = match.route;
      if (requestBody && !gatewayAcceptsBody(requestBody, headerValue(headers, 'content-type'), bytes)) {
        reply(toErrorResponse(gatewayError('BAD_REQUEST_BODY')));
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

      let result: unknown;
      try {
        result = await operation(event, lambdaContext(match.route.operationId, requestId));
      } catch {
        result = undefined;
      }
      reply(isProxyResult(result) ? result : toErrorResponse(gatewayError('INTEGRATION_FAILURE')));
    } catch (error) {
      if (!response.headersSent) reply(toErrorResponse(error));
      else response.destroy();
    }
  };
}
