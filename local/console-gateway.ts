import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { CONSOLE_API_PREFIX } from '../lambda/api/console-routes';
import { toErrorResponse } from '../lambda/api/error-response';
import { ApiError } from '../lambda/api/errors';
import { gatewayError } from '../lambda/api/gateway-errors';
import { jsonResponse } from '../lambda/api/http';
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
import { InvalidSandboxRecord, type SandboxDns, type SandboxRecordType } from './sandbox-dns';

/**
 * Local mode's front of the console's API (`/console/api/…` on the API's port): the request as
 * a REST proxy event to the console function, as its integration would pass it in AWS. Local
 * mode alone also answers `/console/api/sandbox/records`: the sandbox DNS zone, where a tenant's
 * records are created (`npm run domains -- sandbox-record`).
 */

/** The sandbox DNS's records over HTTP: local mode only, never deployed. */
export const SANDBOX_RECORDS_PATH = `${CONSOLE_API_PREFIX}/sandbox/records`;

const FUNCTION_NAME = 'console';

function sandboxRecords(dns: SandboxDns, method: string, url: URL, body: Buffer): APIGatewayProxyResult {
  try {
    switch (method) {
      case 'GET':
        return jsonResponse(200, { records: dns.records(url.searchParams.get('name') ?? undefined) });
      case 'POST': {
        let input: { name?: unknown; type?: unknown; value?: unknown; ttl?: unknown };
        try {
          input = JSON.parse(body.toString('utf8')) as typeof input;
        } catch {
          throw new ApiError('malformed_json', 'The request body is not valid JSON.');
        }
        if (typeof input !== 'object' || input === null) {
          throw new ApiError('invalid_body', 'Send {"name", "type", "value", "ttl"?}.');
        }
        const { name, type, value, ttl } = input;
        if (typeof name !== 'string' || typeof type !== 'string' || typeof value !== 'string') {
          throw new ApiError(
            'invalid_body',
            'name, type and value are strings, e.g. {"name": "shop.example.test", "type": "CNAME", "value": "domains.localhost"}.',
          );
        }
        if (ttl !== undefined && typeof ttl !== 'number')
          throw new ApiError('invalid_body', 'ttl is a number of seconds.');
        const record = dns.setRecord({
          name,
          type: type.toUpperCase() as SandboxRecordType,
          value,
          ...(ttl === undefined ? {} : { ttl }),
        });
        return jsonResponse(201, record);
      }
      case 'DELETE': {
        const name = url.searchParams.get('name');
        const type = url.searchParams.get('type');
        if (!name || !type)
          throw new ApiError('invalid_parameter', 'Give name and type (and value to remove one record).');
        const value = url.searchParams.get('value');
        const removed = dns.removeRecord({
          name,
          type: type.toUpperCase() as SandboxRecordType,
          ...(value === null ? {} : { value }),
        });
        return jsonResponse(200, { removed });
      }
      default:
        throw new ApiError('method_not_allowed', `${SANDBOX_RECORDS_PATH} takes GET, POST and DELETE.`, {
          Allow: 'GET, POST, DELETE',
        });
    }
  } catch (error) {
    if (error instanceof InvalidSandboxRecord)
      return toErrorResponse(new ApiError('invalid_body', error.message));
    return toErrorResponse(error);
  }
}

/** The listener for every request under the console prefix. */
export function createConsoleListener(
  consoleFunction: OperationHandler,
  sandbox?: SandboxDns,
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
      if (sandbox && url.pathname === SANDBOX_RECORDS_PATH) {
        reply(sandboxRecords(sandbox, method, url, body.bytes));
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
      reply(await invokeProxy(consoleFunction, event, FUNCTION_NAME, requestId));
    } catch (error) {
      if (!response.headersSent) reply(toErrorResponse(error));
      else response.destroy();
    }
  };
}
