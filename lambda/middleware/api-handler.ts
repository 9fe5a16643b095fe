import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { readQuery } from '../api/query';
import { type OperationId, routeFor } from '../api/routes';
import type { Schema } from '../api/validate';
import { authenticate } from './authenticate';
import { deprecated } from './deprecation';
import { errorResponses } from './error-responses';
import { jsonBody } from './json-body';

export type ApiLambdaHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** The event an operation's handler receives: the proxy event with its query read and its body validated. */
export interface ApiEvent<Body = undefined> extends APIGatewayProxyEvent {
  /** The query parameters, each given once and known to the operation. */
  query: Record<string, string>;
  /** The parsed, schema-valid JSON body (operations that declare a body schema only). */
  jsonBody: Body;
}

export interface ApiHandlerOptions {
  /** Schema of the JSON request body; operations without one take no body. */
  readonly bodySchema?: Schema;
}

/**
 * The middleware stack every operation shares. `before` runs top down and
 * `onError` bottom up, so errors become Error bodies before the deprecation
 * headers are added to them.
 */
export function apiHandler<Body = undefined>(
  operationId: OperationId,
  handle: (event: ApiEvent<Body>) => Promise<APIGatewayProxyResult>,
  options: ApiHandlerOptions = {},
): ApiLambdaHandler {
  const route = routeFor(operationId);
  const stack = middy<APIGatewayProxyEvent, APIGatewayProxyResult>();
  if (route.deprecation) stack.use(deprecated(route.deprecation));
  stack.use(errorResponses()).use(authenticate());
  stack.use({
    before: async (request) => {
      (request.event as ApiEvent<Body>).query = readQuery(request.event, route.queryParameters);
    },
  });
  if (options.bodySchema) stack.use(jsonBody(options.bodySchema));
  return stack.handler((event) => handle(event as ApiEvent<Body>)) as ApiLambdaHandler;
}
