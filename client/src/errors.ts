import type { components } from './openapi-types.ts';
import type { RetryInfo } from './retry.ts';

/** The Error body the service sends with every non-2xx answer. */
export type ErrorBody = components['schemas']['Error'];

/**
 * The code of an answer that is not what the document promises: a non-2xx without an
 * Error body (e.g. from a proxy), a body that is not JSON, or a `Link` to another origin.
 */
export const UNEXPECTED_RESPONSE = 'unexpected_response';

/** A failed call: the service's answer or the missing one, with what the retries did. */
export abstract class AnimalStoreError extends Error {
  constructor(
    message: string,
    /** Attempts, time waited, why the client stopped, and a `Retry-After` it did not wait out. */
    readonly retry: RetryInfo,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The service answered with an error (the last answer, when retried). */
export class ApiError extends AnimalStoreError {
  override readonly name = 'ApiError';
  /** The Error body, or one with code `unexpected_response` when the answer had none. */
  readonly body: ErrorBody | { code: typeof UNEXPECTED_RESPONSE; message: string; status: number };

  constructor(body: ApiError['body'], retry: RetryInfo) {
    super(body.message, retry);
    this.body = body;
  }

  get status(): number {
    return this.body.status;
  }

  get code(): ApiError['body']['code'] {
    return this.body.code;
  }
}

/** No answer: the connection failed or was cut, or the deadline passed while waiting for it. */
export class NetworkError extends AnimalStoreError {
  override readonly name = 'NetworkError';

  constructor(cause: unknown, retry: RetryInfo) {
    super(
      retry.reason === 'deadline'
        ? 'No answer from the service before the deadline.'
        : 'The service could not be reached.',
      retry,
      { cause },
    );
  }
}
