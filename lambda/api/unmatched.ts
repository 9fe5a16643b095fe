import { ApiError } from './api-error';
import { API_VERSION_PREFIX, type HttpMethod, methodsByPath, ROUTES, type Route } from './routes';

/** Message of the 405 answer for a known path called with another method. */
export function methodNotAllowedMessage(allow: string): string {
  return `Method not allowed: this path accepts ${allow}.`;
}

/** Message of the catch-all's 404 for a path under the version prefix that no route has. */
export const NO_SUCH_PATH_UNDER_PREFIX = `No such path under ${API_VERSION_PREFIX}: ${API_VERSION_PREFIX}/openapi.json lists the paths and their methods.`;

/**
 * What the catch-all answers for a request API Gateway routed to one of its resources
 * (`resource` is the resource template, e.g. `/v1/pets` or `/v1/{proxy+}`): 405 with
 * `Allow` on a route's path, else 404. Reads the resource, not the request path, so it
 * agrees with the gateway's routing by construction.
 */
export function unmatchedRequestError(resource: string, routes: readonly Route[] = ROUTES): ApiError {
  const methods = methodsOfResource(resource, routes);
  if (!methods) return new ApiError('not_found', NO_SUCH_PATH_UNDER_PREFIX);
  const allow = methods.join(', ');
  return new ApiError('method_not_allowed', methodNotAllowedMessage(allow), { Allow: allow });
}

/** The methods of the route path a resource template is (`/v1/pets` → GET, POST); undefined for any other resource. */
export function methodsOfResource(
  resource: string,
  routes: readonly Route[] = ROUTES,
): readonly HttpMethod[] | undefined {
  if (!resource.startsWith(API_VERSION_PREFIX)) return undefined;
  return methodsByPath(routes).get(resource.slice(API_VERSION_PREFIX.length));
}
