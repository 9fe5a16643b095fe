import { ERROR_CATALOGUE, type ErrorCode } from '../lambda/api/errors';
import { RETRY_AFTER_SECONDS } from '../lambda/api/gateway-errors';
import { MAX_BODY_BYTES } from '../lambda/api/limits';
import type { HeaderDoc, Route } from '../lambda/api/routes';
import { deprecationHeaders } from '../lambda/middleware/deprecation';

/**
 * The responses of the OpenAPI document (tools/openapi-document.ts): each operation's statuses with
 * their headers (rate limits, deprecation, its own) and Error bodies narrowed to the codes each can
 * carry, from the route table, the error catalogue and the plan table's headers.
 */

export type Json = Record<string, unknown>;

export const JSON_MEDIA_TYPE = 'application/json';
export const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

/** Who answers with a status: the service always (so its headers are always there), or sometimes the gateway. */
type Source = 'service' | 'service-or-gateway' | 'gateway';

interface ErrorResponse {
  readonly codes: readonly ErrorCode[];
  readonly source: Source;
  readonly description: string;
  readonly headers?: Readonly<Record<string, Json>>;
}

export const header = (schema: Json, description: string, required: boolean): Json => ({
  description,
  required,
  schema,
});

const retryAfter = (description: string) =>
  header({ type: 'integer', minimum: 1 }, `Seconds to wait before retrying. ${description}`, true);

/** The rate-limit headers (plans.ts, core/rate-limit.ts): required where the service always answers. */
function rateLimitHeaderDocs(required: boolean): Record<string, Json> {
  const absent = required
    ? ''
    : ' Absent when API Gateway or the firewall answered without running the service, or when the counters could not be reached.';
  return {
    'X-RateLimit-Limit': header(
      { type: 'integer', minimum: 1 },
      `Requests allowed in the window closest to exhaustion (per minute or per day).${absent}`,
      required,
    ),
    'X-RateLimit-Remaining': header(
      { type: 'integer', minimum: 0 },
      `Requests left in that window.${absent}`,
      required,
    ),
    'X-RateLimit-Reset': header(
      { type: 'integer', minimum: 0 },
      `Unix time (seconds) at which that window resets.${absent}`,
      required,
    ),
    'RateLimit-Policy': header(
      { type: 'string', pattern: '^"minute";q=[0-9]+;w=60, "day";q=[0-9]+;w=86400$' },
      `Both windows of the caller's plan (draft-ietf-httpapi-ratelimit-headers), e.g. \`"minute";q=60;w=60, "day";q=1000;w=86400\`.${absent}`,
      required,
    ),
    RateLimit: header(
      { type: 'string', pattern: '^"minute";r=[0-9]+;t=[0-9]+, "day";r=[0-9]+;t=[0-9]+$' },
      `Requests remaining and seconds to reset of both windows, e.g. \`"minute";r=59;t=42, "day";r=999;t=41000\`.${absent}`,
      required,
    ),
  };
}

/** A rate-limit header's component: `<header>` where the service always answers, `<header>.optional` elsewhere. */
const rateLimitComponent = (name: string, required: boolean) => (required ? name : `${name}.optional`);

/**
 * The rate-limit headers' components, both variants: nearly every response carries these five, so
 * each names them by reference, which keeps the document (served by getOpenApi, bundled into its
 * function) a third smaller.
 */
export function rateLimitHeaderComponents(): Record<string, Json> {
  return Object.fromEntries(
    [true, false].flatMap((required) =>
      Object.entries(rateLimitHeaderDocs(required)).map(([name, doc]) => [
        rateLimitComponent(name, required),
        doc,
      ]),
    ),
  );
}

/** The rate-limit headers of a response, by reference to {@link rateLimitHeaderComponents}. */
export function rateLimitHeaders(required: boolean): Record<string, Json> {
  return Object.fromEntries(
    Object.keys(rateLimitHeaderDocs(required)).map((name) => [
      name,
      ref('headers', rateLimitComponent(name, required)),
    ]),
  );
}

const AUTH_CODES = ['missing_api_key', 'invalid_authorization', 'invalid_api_key'] as const;

/** Errors every operation can answer. */
function commonErrors(route: Route): Record<number, ErrorResponse> {
  const unauthorized: Record<number, ErrorResponse> = route.public
    ? {}
    : {
        401: {
          codes: AUTH_CODES,
          source: 'service',
          description: 'The API key is missing, malformed, unknown or revoked.',
          headers: {
            'WWW-Authenticate': header(
              { type: 'string', pattern: '^Bearer realm="animal-store"' },
              'RFC 6750 challenge; `error="invalid_token"` when a key was sent but is not valid.',
              true,
            ),
          },
        },
      };
  return {
    ...unauthorized,
    403: {
      codes: ['forbidden'],
      source: 'gateway',
      description: 'Refused by API Gateway or the firewall itself.',
    },
    413: {
      codes: ['payload_too_large'],
      source: 'service-or-gateway',
      description: `The request body exceeds ${MAX_BODY_BYTES} bytes (8 KiB), on any path: in AWS the firewall answers before the API.`,
    },
    429: {
      codes: ['rate_limited', 'temporarily_banned'],
      source: 'service-or-gateway',
      description:
        'Over the per-minute or per-day limit of the plan (or of the anonymous allowance), or banned for calling on while limited. Wait `Retry-After` seconds, then back off exponentially. Refused requests do not count.',
      headers: {
        'Retry-After': retryAfter(
          `To the end of the refusing window or of the ban; a fixed ${RETRY_AFTER_SECONDS} when API Gateway's own throttle answered.`,
        ),
      },
    },
    500: {
      codes: ['internal_error'],
      source: 'service-or-gateway',
      description: 'An unexpected error; nothing about it is revealed.',
    },
    502: {
      codes: ['bad_gateway'],
      source: 'gateway',
      description: 'API Gateway could not get a valid answer from the function.',
    },
    503: {
      codes: ['service_unavailable'],
      source: 'service-or-gateway',
      description: 'The data store (pets, keys or rate-limit counters) is unavailable or throttling.',
      headers: { 'Retry-After': retryAfter('1 for a store failure.') },
    },
    504: {
      codes: ['gateway_timeout'],
      source: 'gateway',
      description: 'The function did not answer within API Gateway’s timeout.',
    },
  };
}

/** The Error schema narrowed to the codes (and so the status) one response can carry. */
function errorSchemaFor(status: number, codes: readonly ErrorCode[]): Json {
  for (const code of codes) {
    if (ERROR_CATALOGUE[code].status !== status) {
      throw new Error(
        `Error code ${code} is listed under ${status} but has status ${ERROR_CATALOGUE[code].status}.`,
      );
    }
  }
  return {
    allOf: [ref('schemas', 'Error')],
    properties: { code: { enum: [...codes] }, status: { const: status } },
  };
}

/**
 * An Error response's content: the narrowed schema and an example of its first code. The
 * rendered page's sample would otherwise show the Error schema's first code and status
 * (`invalid_body`, 400) under every status.
 */
export function errorContent(status: number, codes: readonly ErrorCode[]): Json {
  const [code] = codes as [ErrorCode, ...ErrorCode[]];
  return {
    [JSON_MEDIA_TYPE]: {
      schema: errorSchemaFor(status, codes),
      // The description as the message, without its Markdown: a sample shows it as plain text.
      example: { code, message: ERROR_CATALOGUE[code].description.replace(/`/g, ''), status },
    },
  };
}

function deprecationHeaderDocs(route: Route, required: boolean): Record<string, Json> {
  const { deprecation } = route;
  if (!deprecation) return {};
  const example = deprecationHeaders(deprecation, '{base}');
  return {
    Deprecation: header(
      { type: 'string', const: example.Deprecation },
      `RFC 9745: deprecated since ${deprecation.deprecatedAt.slice(0, 10)}.`,
      required,
    ),
    Sunset: header(
      { type: 'string', const: example.Sunset },
      `RFC 8594: removed on ${deprecation.sunsetAt.slice(0, 10)}; from then on the operation answers 410.`,
      required,
    ),
    Link: header(
      { type: 'string', pattern: `^<[^>]+${deprecation.replacementPath}>; rel="successor-version"$` },
      `The replacement: \`<{base}${deprecation.replacementPath}>; rel="successor-version"\`.`,
      required,
    ),
  };
}

function headerDocs(headers: Readonly<Record<string, HeaderDoc>>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, doc]) => [name, header(doc.schema, doc.description, doc.required)]),
  );
}

export function responsesOf(route: Route): Json {
  const { success } = route.docs;
  const successHeaders = Object.entries(headerDocs(success.headers ?? {}));
  const responses: Record<string, Json> = {
    [success.status]: {
      description: success.description,
      headers: {
        ...rateLimitHeaders(true),
        ...deprecationHeaderDocs(route, true),
        ...Object.fromEntries(successHeaders),
      },
      content: {
        [JSON_MEDIA_TYPE]: {
          schema: typeof success.schema === 'string' ? ref('schemas', success.schema) : success.schema,
        },
      },
    },
  };
  const ownErrors = Object.entries(route.docs.errors).map(([status, { headers, ...error }]) => [
    status,
    {
      ...error,
      source: 'service',
      ...(headers ? { headers: headerDocs(headers) } : {}),
    } satisfies ErrorResponse,
  ]);
  const errors: Record<number, ErrorResponse> = { ...commonErrors(route), ...Object.fromEntries(ownErrors) };
  for (const status of Object.keys(errors)
    .map(Number)
    .sort((a, b) => a - b)) {
    const error = errors[status] as ErrorResponse;
    const always = error.source === 'service';
    const codes = error.codes.map((code) => `\`${code}\``).join(', ');
    responses[status] = {
      description: `${error.description} Codes: ${codes}.${error.source === 'gateway' ? ' Answered by API Gateway without running the service, so without rate-limit headers.' : ''}`,
      headers: {
        ...(error.source === 'gateway' ? {} : rateLimitHeaders(always)),
        ...(error.source === 'gateway' ? {} : deprecationHeaderDocs(route, always)),
        ...error.headers,
      },
      content: errorContent(status, error.codes),
    };
  }
  return responses;
}
