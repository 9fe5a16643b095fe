import { DomainError, type DomainErrorKind } from '../core/errors';
import type { IdempotencyKeyInUseError } from '../core/idempotency';
import { type AnyErrorCode, ERROR_CATALOGUE } from './error-catalogue';

export { ERROR_CATALOGUE };
export type { AnyErrorCode, ErrorCode } from './error-catalogue';

/** The spec's Error body. */
export interface ErrorBody {
  code: AnyErrorCode;
  message: string;
  status: number;
}

/**
 * Every code's status: the API's, and the console's once errors.ts has added them (every console
 * module imports it). The API's functions never load it, so they do not bundle the console's catalogue.
 */
const STATUSES: Partial<Record<AnyErrorCode, { readonly status: number }>> = { ...ERROR_CATALOGUE };

/** Adds the statuses of another catalogue's codes; only errors.ts calls it. */
export function addErrorStatuses(
  catalogue: Partial<Record<AnyErrorCode, { readonly status: number }>>,
): void {
  Object.assign(STATUSES, catalogue);
}

/** The Error body of a code: every Error body the service or its gateway sends is built here. */
export function errorBody(code: AnyErrorCode, message: string): ErrorBody {
  return { code, message, status: STATUSES[code]!.status };
}

/** An error that maps to an HTTP response: thrown by the HTTP layer, turned into the Error body by {@link toApiError}'s callers. */
export class ApiError extends Error {
  readonly code: AnyErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: AnyErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = STATUSES[code]!.status;
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
  invalid_idempotency_key: (error) => new ApiError('invalid_idempotency_key', error.message),
  idempotency_key_in_use: (error) =>
    new ApiError('idempotency_key_in_use', error.message, {
      'Retry-After': String((error as IdempotencyKeyInUseError).retryAfterSeconds),
    }),
  idempotency_key_reused: (error) => new ApiError('idempotency_key_reused', error.message),
  invalid_domain: (error) => new ApiError('invalid_domain', error.message),
  plan_without_custom_domains: (error) => new ApiError('plan_without_custom_domains', error.message),
  domain_taken: (error) => new ApiError('domain_taken', error.message),
  domain_not_found: (error) => new ApiError('domain_not_found', error.message),
  domain_role_conflict: (error) => new ApiError('domain_role_conflict', error.message),
  confirmation_required: (error) => new ApiError('confirmation_required', error.message),
  too_many_domains: (error) => new ApiError('too_many_domains', error.message),
  domain_busy: (error) => new ApiError('domain_busy', error.message),
  edge_unavailable: () =>
    new ApiError(
      'service_unavailable',
      'The edge is temporarily unavailable; retry after the Retry-After delay.',
      {
        'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
      },
    ),
  dns_unavailable: (error) =>
    new ApiError('dns_unavailable', `${error.message}; retry after the Retry-After delay.`, {
      'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
    }),
  // The store's exception stays in the logs: the caller learns which kind of value, not why.
  store_refused_input: () =>
    new ApiError(
      'invalid_parameter',
      'A value of the request (an identifier in the path, a token or a host name) is too long or malformed to be one the service has.',
    ),
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
  // The function's own deadline (middy's early timeout, before Lambda's): the answer API
  // Gateway gives when an integration runs out of time. A store call's timeout is the store's.
  if (error instanceof Error && error.name === 'TimeoutError')
    return new ApiError('gateway_timeout', 'The service did not answer in time.');
  return new ApiError('internal_error', 'An unexpected error occurred.');
}
