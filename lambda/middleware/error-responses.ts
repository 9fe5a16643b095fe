import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../api/errors';
import { jsonResponse } from '../api/http';
import { logError } from '../shared/observability';
import { StoreUnavailableError } from '../store/dynamodb-client';

/** Seconds a client should wait before retrying after the store failed. */
const STORE_RETRY_AFTER_SECONDS = 1;

/** Maps any thrown error to an HTTP response with the Error body; never leaks a stack or an internal message. */
export function toErrorResponse(error: unknown): APIGatewayProxyResult {
  if (error instanceof ApiError) return jsonResponse(error.status, error.toBody(), error.headers);
  if (error instanceof StoreUnavailableError) {
    logError('store unavailable', error);
    return toErrorResponse(
      new ApiError(
        'service_unavailable',
        'The data store is temporarily unavailable; retry after the Retry-After delay.',
        {
          'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
        },
      ),
    );
  }
  logError('unhandled error', error);
  return toErrorResponse(new ApiError('internal_error', 'An unexpected error occurred.'));
}

/** Turns errors into Error-body responses. Use it before middlewares whose onError should see the response. */
export function errorResponses(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      request.response = toErrorResponse(request.error);
    },
  };
}
