import type { APIGatewayProxyResult } from 'aws-lambda';
import { DomainError, type DomainErrorKind } from '../core/errors';
import { log, logError } from '../shared/observability';
import { ApiError, toApiError } from './api-error';
import { jsonResponse } from './http';

/** What a failed dependency is logged as: the one that failed, never the store for DNS or the edge. */
const UNAVAILABLE: Partial<Record<DomainErrorKind, string>> = {
  store_unavailable: 'store unavailable',
  dns_unavailable: 'DNS unavailable',
  edge_unavailable: 'edge unavailable',
};

function logMessageOf(error: unknown, apiError: ApiError): string {
  const dependency = error instanceof DomainError ? UNAVAILABLE[error.kind] : undefined;
  if (dependency) return dependency;
  return apiError.code === 'service_unavailable' ? 'store unavailable' : 'unhandled error';
}

/**
 * The Error-body response for anything thrown: the middleware, the local server and the
 * gateway's own refusals all answer through here. Never leaks a stack or an internal message;
 * what the API did not choose to say is logged instead.
 */
export function toErrorResponse(error: unknown): APIGatewayProxyResult {
  const apiError = toApiError(error);
  if (!(error instanceof ApiError) && apiError.status >= 500) {
    logError(logMessageOf(error, apiError), error);
  }
  // The caller's mistake, answered 400; but it means an input check is missing, so it is seen.
  if (error instanceof DomainError && error.kind === 'store_refused_input') {
    log().warn('the store refused a value of the request', error);
  }
  return jsonResponse(apiError.status, apiError.toBody(), apiError.headers);
}
