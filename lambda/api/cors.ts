import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { normalizeOrigin } from '../core/project';
import { ApiError } from './api-error';
import { headerCount, headerValue } from './http';
import { corsOriginOf } from './principal';
import { RATE_LIMIT_HEADER_NAMES } from './rate-limit';
import { methodsOfResource, unmatchedRequestError } from './unmatched';

/**
 * CORS over HTTP: which browser pages may call a project's address. The authorizer decides
 * whether the request's `Origin` is one the project of the address allows and passes it on
 * (`corsOrigin`); this module turns that into headers, and answers `OPTIONS`.
 */

/** The request headers a page may send: its key, a JSON body, and an idempotent create's key. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key'] as const;

/** The response headers a page may read besides the safelisted ones (`Content-Type`, ...). */
export const CORS_EXPOSED_HEADERS = [
  ...RATE_LIMIT_HEADER_NAMES,
  'Retry-After',
  'Link',
  'Location',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
] as const;

/**
 * How long a browser may reuse a preflight's answer: 2 hours, the most Chromium honours
 * (Firefox caps at 24 hours). Preflights are counted like any request, so fewer is better;
 * and nothing is lost by caching it, since every actual response is checked afresh: an
 * origin the project stops allowing gets no `Access-Control-Allow-Origin` on its next
 * response, whatever a browser cached.
 */
export const CORS_MAX_AGE_SECONDS = 7200;

type Event = Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders' | 'httpMethod' | 'requestContext'>;

/** A CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(event: Event): boolean {
  return (
    event.httpMethod === 'OPTIONS' &&
    headerValue(event.headers, 'origin') !== undefined &&
    headerValue(event.headers, 'access-control-request-method') !== undefined
  );
}

/**
 * The request's origin when the project of its address allows it: the authorizer's
 * `corsOrigin`, provided it is the `Origin` this very request sent once (a stale or
 * misrouted context never opens the door to another origin).
 */
export function allowedRequestOrigin(event: Event): string | undefined {
  const corsOrigin = corsOriginOf(event);
  if (corsOrigin === undefined || headerCount(event, 'origin') !== 1) return undefined;
  const sent = normalizeOrigin(headerValue(event.headers, 'origin') ?? '');
  return 'origin' in sent && sent.origin === corsOrigin ? corsOrigin : undefined;
}

/** `Vary` with `Origin` added, keeping what it listed. */
function varyOrigin(headers: Record<string, unknown>): Record<string, string> {
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'vary');
  const listed =
    name === undefined
      ? []
      : String(headers[name])
          .split(/\s*,\s*/)
          .filter(Boolean);
  const rest = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
  if (!listed.some((token) => token === '*' || token.toLowerCase() === 'origin')) listed.push('Origin');
  return { ...(rest as Record<string, string>), Vary: listed.join(', ') };
}

/**
 * A response with its CORS headers. Every response says `Vary: Origin`, since what it
 * carries depends on the origin (a cache must not hand one origin's answer to another);
 * an actual request from an allowed origin also gets `Access-Control-Allow-Origin` and
 * `Access-Control-Expose-Headers`. A preflight's answer is complete as {@link optionsResponse} made it.
 */
export function withCorsHeaders(event: Event, response: APIGatewayProxyResult): APIGatewayProxyResult {
  const headers = varyOrigin(response.headers ?? {});
  const origin = isPreflight(event) ? undefined : allowedRequestOrigin(event);
  if (origin !== undefined) {
    headers['Access-Control-Allow-Origin'] = origin;
    headers['Access-Control-Expose-Headers'] = CORS_EXPOSED_HEADERS.join(', ');
  }
  return { ...response, headers };
}

/** The origin as a message may show it: only a valid one (the header is the caller's text). */
function shownOrigin(event: Event): string {
  const sent = normalizeOrigin(headerValue(event.headers, 'origin') ?? '');
  return 'origin' in sent ? `Origin ${sent.origin}` : 'This Origin header, which is not a valid origin,';
}

/**
 * The answer to `OPTIONS` on a resource under the prefix (the catch-all's). On a route's
 * path: a preflight from an allowed origin for one of the path's methods gets 204 with the
 * CORS headers, any other preflight 403 `cors_not_allowed` without them, and a plain
 * `OPTIONS` 204 with `Allow`. On any other path: 404, as for every method.
 */
export function optionsResponse(
  event: Event & Pick<APIGatewayProxyEvent, 'resource'>,
): APIGatewayProxyResult {
  const methods = methodsOfResource(event.resource);
  if (!methods) throw unmatchedRequestError(event.resource);
  const allow = methods.join(', ');
  if (!isPreflight(event)) return { statusCode: 204, headers: { Allow: allow }, body: '' };
  const origin = allowedRequestOrigin(event);
  if (origin === undefined) {
    throw new ApiError(
      'cors_not_allowed',
      `${shownOrigin(event)} may not call this address: a project's own address (https://<project>.<platform domain>) accepts the origins its project allows.`,
    );
  }
  const requested = headerValue(event.headers, 'access-control-request-method') ?? '';
  if (!methods.some((method) => method === requested)) {
    const shown = /^[A-Za-z]{1,20}$/.test(requested) ? `Method ${requested}` : 'The requested method';
    throw new ApiError('cors_not_allowed', `${shown} is not allowed on this path: it accepts ${allow}.`);
  }
  return {
    statusCode: 204,
    headers: {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': allow,
      'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
      'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
      Vary: 'Origin',
    },
    body: '',
  };
}
