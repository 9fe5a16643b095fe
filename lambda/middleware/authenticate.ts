import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../api/api-error';
import { headerValue } from '../api/http';
import { type AuthFailure, principalOf } from '../api/principal';
import { VIEWER_HOST_HEADER, viewerHostName } from '../core/edge-request';

type KeyFailure = Exclude<AuthFailure, 'unknown_address' | 'unknown_domain'>;

const FAILURE_MESSAGES: Record<KeyFailure, string> = {
  missing_api_key: 'Authentication required: send your API key as `Authorization: Bearer <API key>`.',
  invalid_authorization: 'The Authorization header must have the form `Bearer <API key>`.',
  invalid_api_key: 'The API key is not valid.',
  service_unavailable:
    'The API key could not be checked because the data store is unavailable; retry after the Retry-After delay.',
};

/** RFC 6750 challenge, so that clients know which scheme to use. */
function failureHeaders(failure: KeyFailure): Record<string, string> {
  switch (failure) {
    case 'missing_api_key':
      return { 'WWW-Authenticate': 'Bearer realm="animal-store"' };
    case 'service_unavailable':
      return { 'Retry-After': '1' };
    default:
      return { 'WWW-Authenticate': 'Bearer realm="animal-store", error="invalid_token"' };
  }
}

/**
 * Answers 404 for a project address that no project has, and for a custom domain the edge
 * still routes but the project no longer serves (every route: nothing is served there), then, unless the route is public, 401 unless the authorizer authenticated the request.
 */
export function authenticate({
  required,
}: {
  required: boolean;
}): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (request) => {
      const principal = principalOf(request.event);
      if (principal.authenticated) return;
      if (principal.failure === 'unknown_address') {
        const host = request.event.requestContext?.domainName ?? headerValue(request.event.headers, 'host');
        throw new ApiError('not_found', `No project is served at ${host ?? 'this address'}.`);
      }
      if (principal.failure === 'unknown_domain') {
        const host = viewerHostName(headerValue(request.event.headers, VIEWER_HOST_HEADER) ?? '');
        throw new ApiError('not_found', `No project is served at ${host ?? 'this address'}.`);
      }
      if (required) {
        throw new ApiError(
          principal.failure,
          FAILURE_MESSAGES[principal.failure],
          failureHeaders(principal.failure),
        );
      }
    },
  };
}
