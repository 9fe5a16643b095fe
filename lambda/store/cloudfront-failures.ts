import { EdgeFailure } from '../core/custom-domains/edge-tenants';

/** What CloudFront's failures are, as facts the core puts in words (never the SDK's exception names). */

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

/** A failure of CloudFront itself: transient (worth a retry) or a refusal. */
export function edgeUnavailable(domain: string | undefined, error: unknown): EdgeFailure {
  return new EdgeFailure(isTransient(error) ? 'unavailable' : 'refused', domain, { cause: error });
}
