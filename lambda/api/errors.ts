import { DomainError, type DomainErrorKind } from '../domain/errors';

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
    description: 'Kept calling while rate limited, so banned for a while; retry after `Retry-After` seconds.',
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

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The spec's Error body. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

/** The Error body of a code: every Error body the service or its gateway sends is built here. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { code, message, status: ERROR_CATALOGUE[code].status };
}

/** An error that maps to an HTTP response: thrown by the HTTP layer, turned into the Error body by {@link toApiError}'s callers. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message);
  }
}

/** Seconds a client should wait before retrying after the store failed. */
const STORE_RETRY_AFTER_SECONDS = 1;

/** How each domain refusal reads over HTTP; a new kind does not compile until it has a line here. */
const FROM_DOMAIN: { readonly [K in DomainErrorKind]: (error: DomainError) => ApiError } = {
  invalid_parameter: (error) => new ApiError('invalid_parameter', error.message),
  invalid_cursor: (error) => new ApiError('invalid_cursor', error.message),
  // The store's own message and cause stay in the logs.
  store_unavailable: () =>
    new ApiError(
      'service_unavailable',
      'The data store is temporarily unavailable; retry after the Retry-After delay.',
      { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
    ),
};

/**
 * The one mapping from anything thrown to the error the API answers with: an ApiError as it
 * is, a domain error by its kind, anything else a 500 that reveals nothing.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return FROM_DOMAIN[error.kind](error);
  return new ApiError('internal_error', 'An unexpected error occurred.');
}
