import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { API_VERSION_PREFIX } from './routes';

/** Headers every JSON response carries. */
export const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' } as const;

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** Case-insensitive header lookup; undefined when absent. */
export function headerValue(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** The headers of a proxy or authorizer event. */
export interface EventHeaders {
  readonly headers?: Record<string, string | undefined> | null;
  readonly multiValueHeaders?: Record<string, string[] | undefined> | null;
}

/** Every value of a request header, case-insensitively (API Gateway keeps repeats in multiValueHeaders). */
export function headerValues(event: EventHeaders, name: string): string[] {
  const wanted = name.toLowerCase();
  for (const [key, values] of Object.entries(event.multiValueHeaders ?? {})) {
    if (key.toLowerCase() === wanted) return values ?? [];
  }
  const single = headerValue(event.headers, name);
  return single === undefined ? [] : [single];
}

/** How many times a header was sent. */
export function headerCount(event: EventHeaders, name: string): number {
  return headerValues(event, name).length;
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
