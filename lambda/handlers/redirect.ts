import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** Environment variable holding the host every request is redirected to (a project's primary domain). */
export const REDIRECT_TARGET_ENV = 'REDIRECT_TARGET';

type QueryParameters = APIGatewayProxyEvent['multiValueQueryStringParameters'];

/**
 * `https://<target><path>?<query>`: the same path and query on the target host. The host
 * comes from configuration, never from the request, so this is no open redirect.
 */
export function redirectLocation(targetHost: string, path: string, query: QueryParameters): string {
  const pairs = Object.entries(query ?? {}).flatMap(([name, values]) =>
    (values ?? []).map((value) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`),
  );
  const safePath = path.startsWith('/') ? path : `/${path}`;
  return `https://${targetHost}${safePath}${pairs.length > 0 ? `?${pairs.join('&')}` : ''}`;
}

/** The 301 answer to any request on a redirect domain. */
export function redirectResponse(event: APIGatewayProxyEvent, targetHost: string): APIGatewayProxyResult {
  return {
    statusCode: 301,
    headers: {
      Location: redirectLocation(targetHost, event.path || '/', event.multiValueQueryStringParameters),
      'Cache-Control': 'public, max-age=3600',
    },
    body: '',
  };
}

let target: string | undefined;

/** Answers every method and path of a redirect domain's API with 301 to the primary domain. */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  target ??= process.env[REDIRECT_TARGET_ENV];
  if (!target) {
    throw new Error(`Environment variable ${REDIRECT_TARGET_ENV} is not set: the domains stack must set it.`);
  }
  return redirectResponse(event, target);
}
