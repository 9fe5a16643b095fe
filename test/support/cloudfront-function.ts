import vm from 'node:vm';

/**
 * A CloudFront Function run as CloudFront runs it: its own source in a fresh V8 context, its
 * `handler(event)` called with events shaped as CloudFront's documented event object
 * (developer guide, "CloudFront Functions event structure": version 1.0, context, viewer,
 * request with lower-case header names and `{ value, multiValue }` entries). The redirect
 * function's and the console path function's tests both run theirs here.
 */

/** A header, query or cookie entry. */
export interface ValueEntry {
  value: string;
  multiValue?: { value: string }[];
}

export interface FunctionRequest {
  method: string;
  uri: string;
  querystring: Record<string, ValueEntry>;
  headers: Record<string, ValueEntry>;
  cookies: Record<string, ValueEntry>;
  /** Runtime 2.0's raw query, as the viewer sent it. */
  rawQueryString?: () => string | undefined;
}

export interface FunctionResponse {
  statusCode: number;
  statusDescription: string;
  headers: Record<string, ValueEntry>;
}

/** A viewer-request event. */
export interface FunctionEvent {
  version: '1.0';
  context: { endpoint?: string; distributionId: string; eventType: 'viewer-request'; requestId: string };
  viewer: { ip: string };
  request: FunctionRequest;
}

export type FunctionHandler = (event: FunctionEvent) => FunctionRequest | FunctionResponse;

/**
 * The `handler` a function's `source` declares, run in a fresh context whose only globals are
 * `globals` (a stand-in for a module the script cannot import, say).
 */
export function cloudFrontHandler(
  source: string,
  globals: Record<string, unknown> = {},
  filename = 'function.js',
): FunctionHandler {
  const context = vm.createContext({ ...globals });
  vm.runInContext(source, context, { filename });
  return (context as { handler: FunctionHandler }).handler;
}
