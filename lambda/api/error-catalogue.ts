import type { ConsoleErrorCode } from './console-error-catalogue';

/**
 * The catalogue of machine-readable error codes. Every non-2xx response the service
 * produces (handlers, middleware, the gateway's own responses, the local server)
 * uses one of these codes, with `status` equal to the HTTP status.
 */
export const ERROR_CATALOGUE = {
  invalid_body: {
    status: 400,
    description: 'The request body is missing, not a JSON object, or a field is missing, unknown or invalid.',
  },
  malformed_json: { status: 400, description: 'The request body is not valid JSON.' },
  invalid_parameter: {
    status: 400,
    description: 'A query or path parameter is invalid, unknown or repeated.',
  },
  invalid_cursor: {
    status: 400,
    description: 'The pagination cursor is corrupt, tampered with, or belongs to a different filter.',
  },
  missing_api_key: { status: 401, description: 'No Authorization header was sent.' },
  invalid_authorization: {
    status: 401,
    description: 'The Authorization header is not of the form `Bearer <API key>`.',
  },
  invalid_api_key: {
    status: 401,
    description: 'The API key is unknown, malformed or revoked (the message never says which).',
  },
  forbidden: { status: 403, description: 'The request was refused by the gateway or the firewall.' },
  cors_not_allowed: {
    status: 403,
    description:
      'A CORS preflight from an origin that the project of this address does not allow, or for a method the path does not have.',
  },
  not_found: {
    status: 404,
    description:
      'No such path (unknown route, or a version prefix other than `/v1`), or a project address that no project has.',
  },
  pet_not_found: { status: 404, description: 'No pet has the requested id.' },
  method_not_allowed: {
    status: 405,
    description: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
  },
  invalid_idempotency_key: {
    status: 400,
    description:
      'The `Idempotency-Key` header is not a quoted string (or bare token) of 1 to 255 printable ASCII characters, or it was sent twice.',
  },
  idempotency_key_in_use: {
    status: 409,
    description:
      'A request with this `Idempotency-Key` is still in progress; retry the same request after `Retry-After` seconds.',
  },
  idempotency_key_reused: {
    status: 422,
    description:
      'This `Idempotency-Key` was used within the last 24 hours with a different request body; use a new key for a different request.',
  },
  gone: { status: 410, description: 'The operation has reached its sunset date and was removed.' },
  payload_too_large: { status: 413, description: 'The request body exceeds the documented maximum size.' },
  unsupported_media_type: {
    status: 415,
    description: 'The request body is not sent as `application/json` (UTF-8).',
  },
  rate_limited: {
    status: 429,
    description:
      'Over the per-minute or per-day limit; retry after `Retry-After` seconds, then back off exponentially.',
  },
  temporarily_banned: {
    status: 429,
    description:
      'This API key (without a valid key: this client) kept calling while rate limited, so it is banned for a while; the project’s other keys are not. Retry after `Retry-After` seconds.',
  },
  internal_error: {
    status: 500,
    description: 'An unexpected error; nothing about it is revealed. Safe to retry idempotent requests.',
  },
  bad_gateway: { status: 502, description: 'The gateway could not reach the function behind it.' },
  service_unavailable: {
    status: 503,
    description: 'A dependency (the data store) is unavailable or throttling; retry after `Retry-After`.',
  },
  gateway_timeout: { status: 504, description: 'The function behind the gateway did not answer in time.' },
} as const satisfies Record<string, { status: number; description: string }>;

/** A code of the published pets API. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Any code the service answers with, the pets API's or the console's (the console's in console-error-catalogue.ts). */
export type AnyErrorCode = ErrorCode | ConsoleErrorCode;
