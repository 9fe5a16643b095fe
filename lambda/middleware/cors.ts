import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { withCorsHeaders } from '../api/cors';

/**
 * Puts the CORS headers on every response of the function, errors included: used right
 * after the request log, so that its `after` and `onError` run once every other
 * middleware (Error bodies, 401, 404, 429, 503, deprecation) has made the response.
 */
export function cors(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const addHeaders = async (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>) => {
    if (request.response) request.response = withCorsHeaders(request.event, request.response);
  };
  return { after: addHeaders, onError: addHeaders };
}
