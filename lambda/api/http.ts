import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { API_VERSION_PREFIX } from './routes';
import { headerValue } from './headers';

export { type EventHeaders, headerCount, headerValue, headerValues } from './headers';

/**
 * Headers every JSON answer carries, whoever makes it: the operations, the Error bodies, the
 * console's API, local mode's gateway and edge, and API Gateway's own gateway responses
 * (lib/constructs/gateway-responses.ts). `nosniff` keeps a browser from reading a JSON body
 * that echoes a caller's text as HTML or script.
 */
export const JSON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
} as const;

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/**
 * The public base URL of the API version the request came through, e.g.
 * `https://api.example.com/v1` or `https://abc.execute-api.eu-west-1.amazonaws.com/production/v1`.
 * `requestContext.path` carries the stage or base-path prefix that `event.path` lacks.
 */
export function versionBaseUrl(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext' | 'path'>,
): string {
  const protocol = headerValue(event.headers, 'x-forwarded-proto') ?? 'https';
  const host = event.requestContext.domainName ?? headerValue(event.headers, 'host') ?? 'localhost';
  const fullPath = event.requestContext.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  return `${protocol}://${host}${prefix}${API_VERSION_PREFIX}`;
}
