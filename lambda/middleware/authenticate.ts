import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../api/errors';
import { type AuthFailure, principalOf } from '../api/principal';

const FAILURE_MESSAGES: Record<AuthFailure, string> = {
  missing_api_key: 'Authentication required: send your API key as `Authorization: Bearer <API key>`.',
  invalid_authorization: 'The Authorization header must have the form `Bearer <API key>`.',
  invalid_api_key: 'The API key is not valid.',
  service_unavailable:
    'The API key could not be checked because the data store is unavailable; retry after the Retry-After delay.',
};

/** RFC 6750 challenge, so that clients know which scheme to use. */
function failureHeaders(failure: AuthFailure): Record<string, string> {
  switch (failure) {
    case 'missing_api_key':
      return { 'WWW-Authenticate': 'Bearer realm="animal-store"' };
    case 'service_unavailable':
      return { 'Retry-After': '1' };
    default:
      return { 'WWW-Authenticate': 'Bearer realm="animal-store", error="invalid_token"' };
  }
}

/** Answers 401 unless the authorizer authenticated the request. */
export function authenticate(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (request) => {
      const principal = principalOf(request.event);
      if (!principal.authenticated) {
        throw new ApiError(
          principal.failure,
          FAILURE_MESSAGES[principal.failure],
          failureHeaders(principal.failure),
        );
      }
    },
  };
}
