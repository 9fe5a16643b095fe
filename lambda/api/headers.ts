/**
 * Reading request headers, case-insensitively, from proxy and authorizer events. Apart from
 * http.ts: the authorizer needs these and nothing of the route table.
 */

/** Case-insensitive header lookup; undefined when absent. */
export function headerValue(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** The headers of a proxy or authorizer event. */
export interface EventHeaders {
  readonly headers?: Record<string, string | undefined> | null;
  readonly multiValueHeaders?: Record<string, string[] | undefined> | null;
}

/** Every value of a request header, case-insensitively (API Gateway keeps repeats in multiValueHeaders). */
export function headerValues(event: EventHeaders, name: string): string[] {
  const wanted = name.toLowerCase();
  for (const [key, values] of Object.entries(event.multiValueHeaders ?? {})) {
    if (key.toLowerCase() === wanted) return values ?? [];
  }
  const single = headerValue(event.headers, name);
  return single === undefined ? [] : [single];
}

/** How many times a header was sent. */
export function headerCount(event: EventHeaders, name: string): number {
  return headerValues(event, name).length;
}
