import { getHttpOperationsFromSpec } from '@stoplight/prism-http/dist/utils/operations';
import route from '@stoplight/prism-http/dist/router';
import { validateOutput } from '@stoplight/prism-http/dist/validator';
import document from '../../openapi.json';
import { API_VERSION_PREFIX } from '../../lambda/api/routes';
import { matchRoute } from '../../local/route-matcher';

/**
 * Contract checks: every response the end-to-end tests receive is validated against
 * the published OpenAPI document (status, media type, body and headers) by Stoplight
 * Prism's validator, which reads OpenAPI 3.1 with JSON Schema 2020-12 (the document's
 * `jsonSchemaDialect`) and checks required and declared response headers.
 */

type IHttpOperation = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>[number];
type Diagnostics = Extract<ReturnType<typeof validateOutput>, { _tag: 'Left' }>['left'];

const LIST_PETS_RESPONSES =
  (document.paths as Record<string, { get?: { responses: Record<string, unknown> } }>)['/pets']?.get
    ?.responses ?? {};

/** Requests that match no operation are answered by the catch-all or the gateway; the document describes those answers as components. */
const UNMATCHED_DOCUMENT = {
  ...document,
  paths: {
    '/{anything}': {
      get: {
        operationId: 'unmatched',
        responses: {
          // OPTIONS on a known path: 204 (Allow, or a preflight's CORS headers), or a refused preflight.
          '204': { description: 'OPTIONS answered: no body.' },
          '403': { $ref: '#/components/responses/CorsNotAllowed' },
          '404': { $ref: '#/components/responses/NotFound' },
          '405': { $ref: '#/components/responses/MethodNotAllowed' },
          '413': { $ref: '#/components/responses/PayloadTooLarge' },
          // The catch-all is counted like any operation: it may refuse (429) or fail closed (503) as they do.
          '429': LIST_PETS_RESPONSES['429'],
          '503': LIST_PETS_RESPONSES['503'],
        },
      },
    },
  },
};

let operations: Promise<{ operations: IHttpOperation[]; unmatched: IHttpOperation }> | undefined;

function loadOperations() {
  operations ??= Promise.all([
    getHttpOperationsFromSpec(document),
    getHttpOperationsFromSpec(UNMATCHED_DOCUMENT),
  ]).then(([all, [unmatched]]) => {
    if (!unmatched) throw new Error('The unmatched-request operation did not load');
    return { operations: all, unmatched };
  });
  return operations;
}

/**
 * The operation of the document a request is for, or undefined when it is for no operation.
 * The gateway's own matcher (the one the local server uses) decides first: a path it does
 * not route (e.g. an empty `{petId}` segment) is a gateway answer, whatever Prism's router
 * would make of it.
 */
function operationFor(all: IHttpOperation[], method: string, url: URL): IHttpOperation | undefined {
  if (matchRoute(method.toUpperCase(), url.pathname).kind !== 'route') return undefined;
  if (!url.pathname.startsWith(`${API_VERSION_PREFIX}/`)) return undefined;
  let path = url.pathname.slice(API_VERSION_PREFIX.length);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const matched = route({
    resources: all,
    input: { method: method.toLowerCase() as 'get', url: { path } },
  });
  return matched._tag === 'Left' ? undefined : matched.right;
}

function describe(diagnostics: Diagnostics): string {
  return diagnostics.map((d) => `  - ${d.path ? `${d.path.join('.')}: ` : ''}${d.message}`).join('\n');
}

/** A response that is not what the OpenAPI document says. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

/**
 * Validates one response against the document; throws a {@link ContractViolation}
 * naming every difference. The response itself is left unread.
 */
export async function checkResponse(method: string, url: string, response: Response): Promise<void> {
  const { operations: all, unmatched } = await loadOperations();
  const target = new URL(url);
  const operation = operationFor(all, method, target) ?? unmatched;
  const text = await response.clone().text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  let body: unknown = text;
  if (/^application\/json/i.test(headers['content-type'] ?? '')) {
    try {
      body = JSON.parse(text);
    } catch {
      throw new ContractViolation(
        `${method} ${target.pathname} answered ${response.status} with invalid JSON: ${text}`,
      );
    }
  }
  const result = validateOutput({
    resource: operation,
    element: { statusCode: response.status, headers, body },
  });
  if (result._tag === 'Left') {
    throw new ContractViolation(
      `${method} ${target.pathname}${target.search} answered ${response.status}, which the OpenAPI document (${operation === unmatched ? 'gateway answers outside the operations' : `operation ${String(operation.iid)}`}) does not allow:\n${describe(result.left)}\nbody: ${text.slice(0, 500)}`,
    );
  }
}

/** `fetch` that validates every response against the document before handing it back. */
export const contractFetch: typeof fetch = async (input, init) => {
  const request = input instanceof Request ? input : undefined;
  const method = init?.method ?? request?.method ?? 'GET';
  const url = request?.url ?? String(input);
  const response = await fetch(input, init);
  await checkResponse(method, url, response);
  return response;
};
