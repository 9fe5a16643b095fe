import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiError } from './api-error';

/**
 * Reads the query string: every parameter at most once, and only those the
 * operation knows, so that a typo (`?stauts=sold`) is an error rather than a
 * silently unfiltered answer.
 */
export function readQuery(
  event: Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>,
  allowed: readonly string[],
): Record<string, string> {
  const multi = event.multiValueQueryStringParameters ?? {};
  const single = event.queryStringParameters ?? {};
  const query: Record<string, string> = {};
  for (const name of new Set([...Object.keys(multi), ...Object.keys(single)])) {
    if (!allowed.includes(name)) {
      throw new ApiError(
        'invalid_parameter',
        allowed.length === 0
          ? `Unknown query parameter ${JSON.stringify(name)}: this operation takes no query parameters.`
          : `Unknown query parameter ${JSON.stringify(name)}; allowed parameters are ${allowed.join(', ')}.`,
      );
    }
    const values = multi[name] ?? [single[name] ?? ''];
    if (values.length > 1) {
      throw new ApiError(
        'invalid_parameter',
        `Query parameter ${name} was given ${values.length} times; give it once.`,
      );
    }
    query[name] = values[0] ?? '';
  }
  return query;
}
