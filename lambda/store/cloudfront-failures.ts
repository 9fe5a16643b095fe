import { DomainError } from '../core/errors';

/** What CloudFront's failures mean for the service, in words for a tenant (never the SDK's exception names). */

/** Whether an SDK error is CloudFront's answer of this name (EntityNotFound, PreconditionFailed, …). */
export function named(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

/** Error names of throttling (CloudFront answers `Throttling`; the others are the SDK's family). */
const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
]);

/** Throttling, a CloudFront fault (5xx) or no answer at all (the network): worth a retry later. */
function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  const { $fault, $metadata, $retryable } = error as Error & {
    $fault?: string;
    $metadata?: { httpStatusCode?: number };
    $retryable?: { throttling?: boolean };
  };
  const status = $metadata?.httpStatusCode;
  return (
    THROTTLING.has(error.name) ||
    Boolean($retryable?.throttling) ||
    $fault === 'server' ||
    status === undefined ||
    status === 429 ||
    status >= 500
  );
}

/** A failure of CloudFront itself, in words for the tenant (never the SDK's exception names). */
export function edgeUnavailable(domain: string | undefined, error: unknown): DomainError {
  const message = isTransient(error)
    ? 'The edge cannot answer now: retry in a moment.'
    : `The edge refused the change${domain ? ` for ${domain}` : ''}: retry later, and tell the platform team if it persists.`;
  return new DomainError('edge_unavailable', message, { cause: error });
}
