import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { toErrorResponse } from '../api/error-response';

/** Turns errors into Error-body responses. Use it before middlewares whose onError should see the response. */
export function errorResponses(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      request.response = toErrorResponse(request.error);
    },
  };
}
