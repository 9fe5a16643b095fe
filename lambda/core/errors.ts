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
  | 'store_unavailable'
  /** The store refused a value of the request as input (a key too long to be one): the caller's fault, not an outage. */
  | 'store_refused_input'
  /** An Idempotency-Key is not a quoted string or token of 1 to 255 printable characters. */
  | 'invalid_idempotency_key'
  /** Another request with the same Idempotency-Key is still in flight. */
  | 'idempotency_key_in_use'
  /** The Idempotency-Key was already used with a different request body. */
  | 'idempotency_key_reused'
  /** A custom domain name that cannot be attached (not a name, an address, the platform's own, a public suffix). */
  | 'invalid_domain'
  /** The project's plan has no custom domains. */
  | 'plan_without_custom_domains'
  /** The name is attached to a project already, or the edge refuses it as in use elsewhere (at verify). */
  | 'domain_taken'
  /** The project has no such custom domain (another project's is not found either). */
  | 'domain_not_found'
  /** The change contradicts the project's domain roles (a redirect without a primary, ...). */
  | 'domain_role_conflict'
  /** The removal stops traffic that nothing redirects: it needs the caller's confirmation. */
  | 'confirmation_required'
  /** The project has as many custom domains as one project may have. */
  | 'too_many_domains'
  /** The domain changed while the request ran (another request won). */
  | 'domain_busy'
  /** The edge (CloudFront, or local mode's edge) cannot answer. */
  | 'edge_unavailable'
  /** DNS cannot answer, so the verdict cannot be given. */
  | 'dns_unavailable';

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

/**
 * Thrown by a repository when the store refuses the request's own values (DynamoDB's
 * ValidationException: a key over 2,048 bytes, an empty key). Every identifier is checked where
 * it enters, so this means a check is missing; its message is for logs, never for callers.
 */
export class StoreRefusedInputError extends DomainError {
  constructor(cause: unknown) {
    super('store_refused_input', 'The data store refused a value of the request', { cause });
    this.name = 'StoreRefusedInputError';
  }
}
