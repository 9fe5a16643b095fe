import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../api/api-error';
import { versionBaseUrl } from '../api/http';
import type { Deprecation } from '../api/routes';

type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** Headers a deprecated operation sends on every response: RFC 9745 Deprecation, RFC 8594 Sunset, and the successor. */
export function deprecationHeaders(deprecation: Deprecation, baseUrl: string): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(Date.parse(deprecation.deprecatedAt) / 1000)}`,
    Sunset: new Date(deprecation.sunsetAt).toUTCString(),
    Link: `<${baseUrl}${deprecation.replacementPath}>; rel="successor-version"`,
  };
}

/** Adds the deprecation headers to every response of a deprecated operation, errors included. */
export function deprecated(deprecation: Deprecation): Middleware {
  const addHeaders = async (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>) => {
    if (!request.response) return;
    const headers = deprecationHeaders(deprecation, versionBaseUrl(request.event));
    request.response.headers = { ...request.response.headers, ...headers };
  };
  return { after: addHeaders, onError: addHeaders };
}

/** From the sunset date on, a deprecated operation answers 410 to everyone. */
export function sunset(deprecation: Deprecation, now: () => number): Middleware {
  const sunsetMs = Date.parse(deprecation.sunsetAt);
  return {
    before: async () => {
      if (now() >= sunsetMs) {
        throw new ApiError(
          'gone',
          `This operation was removed on ${new Date(sunsetMs).toUTCString()}; use GET ${deprecation.replacementPath} with a status filter instead.`,
        );
      }
    },
  };
}
