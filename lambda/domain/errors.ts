/**
 * What the domain refuses, and why, without any HTTP: `lambda/api/errors.ts` maps each kind
 * to the Error body in one place. A message says what was wrong in words a caller can act on.
 */
export type DomainErrorKind =
  /** A request value (a query or path parameter) is invalid. */
  | 'invalid_parameter'
  /** A pagination cursor is corrupt, tampered with, or belongs to another filter. */
  | 'invalid_cursor'
  /** The store behind a repository cannot answer (unreachable, throttling, failing). */
  | 'store_unavailable';

export class DomainError extends Error {
  readonly kind: DomainErrorKind;

  constructor(kind: DomainErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DomainError';
    this.kind = kind;
  }
}

/** Thrown by a repository when its store cannot answer; its message is for logs, never for callers. */
export class StoreUnavailableError extends DomainError {
  constructor(cause: unknown) {
    super('store_unavailable', 'The data store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}
