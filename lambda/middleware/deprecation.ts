import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../api/errors';
import { versionBaseUrl } from '../api/http';
import type { Deprecation } from '../api/routes';
import { now } from '../shared/clock';

/** Headers a deprecated operation sends on every response: RFC 9745 Deprecation, RFC 8594 Sunset, and the successor. */
export function deprecationHeaders(deprecation: Deprecation, baseUrl: string): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(Date.parse(deprecation.deprecatedAt) / 1000)}`,
    Sunset: new Date(deprecation.sunsetAt).toUTCString(),
    Link: `<${baseUrl}${deprecation.replacementPath}>; rel="successor-version"`,
  };
}

/**
 * For a deprecated operation: adds the deprecation headers to every response,
 * errors included, and answers 410 from the sunset date on.
 */
export function deprecated(
  deprecation: Deprecation,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const sunsetMs = Date.parse(deprecation.sunsetAt);
  const addHeaders = async (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>) => {
    if (!request.response) return;
    const headers = deprecationHeaders(deprecation, versionBaseUrl(request.event));
    request.response.headers = { ...request.response.headers, ...headers };
  };
  return {
    before: async () => {
      if (now() >= sunsetMs) {
        throw new ApiError(
          'gone',
          `This operation was removed on ${new Date(sunsetMs).toUTCString()}; use GET ${deprecation.replacementPath} with a status filter instead.`,
        );
      }
    },
    after: addHeaders,
    onError: addHeaders,
  };
}
