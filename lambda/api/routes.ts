import type { ErrorCode } from './api-error';
import { MAX_BODY_BYTES } from './limits';
import { NewPetSchema, type QueryParameterName } from './schemas';
import type { Schema } from './validate';

/**
 * The route table: the one list of operations, with their documentation. The CDK stack
 * builds API Gateway resources and methods from it, the local server routes requests with
 * it, and the OpenAPI document is generated from it.
 */

/** Every path of the API lives under this version prefix (the spec's `{base_url}` ends in it). */
export const API_VERSION_PREFIX = '/v1';

export type HttpMethod = 'GET' | 'POST';

export type OperationId = 'listPets' | 'createPet' | 'getPet' | 'getOpenApi';

/** Deprecation of an operation (RFC 9745 `Deprecation`, RFC 8594 `Sunset`). */
export interface Deprecation {
  /** When the operation was deprecated (ISO 8601, UTC). */
  readonly deprecatedAt: string;
  /** When the operation is removed; from then on it answers 410 (ISO 8601, UTC). */
  readonly sunsetAt: string;
  /** Path (relative to the version prefix) of the operation that replaces it. */
  readonly replacementPath: string;
}

/** The JSON request body an operation requires. */
export interface RequestBody {
  /** Name of the schema: the OpenAPI component is called this. */
  readonly name: string;
  readonly schema: Schema;
}

/** A response header an operation documents. */
export interface HeaderDoc {
  /** JSON Schema of its value. */
  readonly schema: Readonly<Record<string, unknown>>;
  readonly description: string;
  /** Sent on every such response. */
  readonly required: boolean;
}

/**
 * What the OpenAPI document says of an operation beyond its route: the errors every
 * operation shares (authentication, rate limits, gateway and store failures) are added there.
 */
export interface OperationDocs {
  readonly summary: string;
  readonly description: string;
  readonly tag: 'pets' | 'interface';
  readonly success: {
    readonly status: number;
    readonly description: string;
    /** A schema component's name, or an inline JSON Schema. */
    readonly schema: string | Readonly<Record<string, unknown>>;
    readonly headers?: Readonly<Record<string, HeaderDoc>>;
  };
  /** Request headers the operation reads (besides Authorization), as header parameters. */
  readonly requestHeaders?: Readonly<Record<string, HeaderDoc>>;
  /** Status → the operation's own error codes there (always answered by the service), and when. */
  readonly errors: Readonly<
    Record<
      number,
      {
        readonly codes: readonly ErrorCode[];
        readonly description: string;
        readonly headers?: Readonly<Record<string, HeaderDoc>>;
      }
    >
  >;
}

export interface Route {
  readonly operationId: OperationId;
  readonly method: HttpMethod;
  /** API Gateway style path template relative to {@link API_VERSION_PREFIX}, e.g. `/pets/{petId}`. */
  readonly path: string;
  /** Module under `lambda/handlers/` (without extension) that exports `handler`. */
  readonly handlerModule: string;
  /** The query parameters the operation accepts; any other is refused with 400. */
  readonly queryParameters: readonly QueryParameterName[];
  /** The JSON body the operation requires; operations without one take no body. */
  readonly requestBody?: RequestBody;
  /** Served without an API key (still counted, per client IP, by the rate limiter). */
  readonly public?: boolean;
  readonly deprecation?: Deprecation;
  readonly docs: OperationDocs;
}

const NEXT_LINK: HeaderDoc = {
  schema: { type: 'string', pattern: '^<[^>]+/pets\\?[^>]*cursor=[A-Za-z0-9_-]+[^>]*>; rel="next"$' },
  description:
    'Present when more animals follow: `<{base}/pets?limit=…&status=…&cursor=…>; rel="next"`. Follow it unchanged; its absence marks the last page.',
  required: false,
};

export const ROUTES: readonly Route[] = [
  {
    operationId: 'listPets',
    method: 'GET',
    path: '/pets',
    handlerModule: 'list-pets',
    queryParameters: ['limit', 'status', 'cursor'],
    docs: {
      summary: 'List all animals',
      tag: 'pets',
      description:
        'One page of animals in ascending id (creation) order, optionally filtered by status. More pages are reached through the `Link: rel="next"` header; unknown or repeated query parameters are refused.',
      success: {
        status: 200,
        description: 'A JSON array of animals (possibly empty).',
        schema: 'Pets',
        headers: { Link: NEXT_LINK },
      },
      errors: {
        400: {
          codes: ['invalid_parameter', 'invalid_cursor'],
          description:
            'A query parameter is invalid, unknown or repeated, or the cursor was altered or belongs to another status filter.',
        },
      },
    },
  },
  {
    operationId: 'createPet',
    method: 'POST',
    path: '/pets',
    handlerModule: 'create-pet',
    queryParameters: [],
    requestBody: { name: 'NewPet', schema: NewPetSchema },
    docs: {
      summary: 'Add an animal',
      tag: 'pets',
      description: `Stores a new animal and answers with it, including its assigned id. The body is a \`NewPet\` sent as \`application/json\` (UTF-8), at most ${MAX_BODY_BYTES} bytes; unknown fields are refused. A pet created without a status is \`available\`.`,
      success: {
        status: 201,
        description: 'The created animal.',
        schema: 'Pet',
        headers: {
          Location: {
            schema: { type: 'string', format: 'uri', pattern: '/pets/[1-9][0-9]*$' },
            description: 'URL of the created animal: `{base}/pets/{id}`.',
            required: true,
          },
          'Idempotent-Replayed': {
            schema: { type: 'string', const: 'true' },
            description:
              'Present when this answer replays an earlier create with the same `Idempotency-Key`: the same animal and `Location`, nothing created again.',
            required: false,
          },
        },
      },
      requestHeaders: {
        'Idempotency-Key': {
          schema: { type: 'string', minLength: 1 },
          description:
            'Makes the create safe to retry (IETF draft "The Idempotency-Key HTTP Header Field"): a quoted string of 1 to 255 printable ASCII characters, e.g. `"8e03978e-40d5-43e8-bc93-6894a57f9324"`; a bare token (RFC 9110 token characters, plus `:` and `/`, so a UUID needs no quotes) is accepted too. Keys are per project and remembered for 24 hours after the create: a retry with the same key and body answers the first 201 again, with `Idempotent-Replayed: true`, and creates nothing.',
          required: false,
        },
      },
      errors: {
        400: {
          codes: ['invalid_body', 'malformed_json', 'invalid_parameter', 'invalid_idempotency_key'],
          description:
            'The body is missing, not JSON or not a valid `NewPet`, a query parameter was sent, or the `Idempotency-Key` is malformed or repeated. The message names each problem: every field and the rule it breaks.',
        },
        409: {
          codes: ['idempotency_key_in_use'],
          description:
            'A request with the same `Idempotency-Key` is still in progress; send the same request again after `Retry-After` seconds.',
          headers: {
            'Retry-After': {
              schema: { type: 'integer', minimum: 1 },
              description:
                'Seconds until the request in progress has finished or given up its claim on the key.',
              required: true,
            },
          },
        },
        422: {
          codes: ['idempotency_key_reused'],
          description: 'The `Idempotency-Key` was used within 24 hours with a different body.',
        },
        415: {
          codes: ['unsupported_media_type'],
          description: 'The body is not sent as `application/json` (charset, if given, UTF-8).',
        },
      },
    },
  },
  {
    operationId: 'getPet',
    method: 'GET',
    path: '/pets/{petId}',
    handlerModule: 'get-pet',
    queryParameters: [],
    deprecation: {
      deprecatedAt: '2026-01-01T00:00:00Z',
      sunsetAt: '2030-12-05T00:00:00Z',
      replacementPath: '/pets',
    },
    docs: {
      summary: 'Get an animal',
      tag: 'pets',
      description: 'One animal by id, read with strong consistency.',
      success: { status: 200, description: 'The animal.', schema: 'Pet' },
      errors: {
        400: {
          codes: ['invalid_parameter'],
          description: 'The id is not an integer from 1 to 2^53 − 1, or a query parameter was sent.',
        },
        404: { codes: ['pet_not_found'], description: 'No animal has this id.' },
        410: { codes: ['gone'], description: 'The operation has reached its sunset date and was removed.' },
      },
    },
  },
  {
    operationId: 'getOpenApi',
    method: 'GET',
    path: '/openapi.json',
    handlerModule: 'get-openapi',
    queryParameters: [],
    public: true,
    docs: {
      summary: 'Get this OpenAPI document',
      tag: 'interface',
      description:
        'This document, as JSON. It needs no API key: without one (or with an invalid one) the request is counted against the anonymous per-IP allowance, with a valid key against its plan.',
      success: {
        status: 200,
        description: 'The OpenAPI 3.1 document.',
        schema: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
        },
      },
      errors: { 400: { codes: ['invalid_parameter'], description: 'A query parameter was sent.' } },
    },
  },
];

/** The module of the Lambda authorizer, under `lambda/handlers/`. */
export const AUTHORIZER_MODULE = 'authorizer';

/**
 * The catch-all: one function that answers every request under the version prefix that no
 * route takes, 404 `not_found` or, on a route's path, 405 `method_not_allowed` with `Allow`.
 * It runs behind the authorizer and the rate limiter like the operations, so junk is
 * counted and its answers carry the rate-limit headers. Only requests outside the prefix
 * are left to API Gateway. OPTIONS lands here too: the catch-all answers CORS preflights
 * (lambda/api/cors.ts), so no route has an OPTIONS method of its own.
 */
export const CATCH_ALL = {
  /** Its name in logs and metrics, where the operations put their operationId. */
  name: 'catchAll',
  /** Module under `lambda/handlers/` (without extension) that exports `handler`. */
  handlerModule: 'catch-all',
  /** The greedy path (relative to the prefix) that takes every path no resource of a route matches. */
  proxyPath: '/{proxy+}',
} as const;

/** The name a function's requests are logged and measured under: its operation, or the catch-all's. */
export type HandlerName = OperationId | typeof CATCH_ALL.name;

/**
 * Every path (relative to the prefix, `''` being the prefix itself) whose other methods
 * the catch-all answers: the prefix, the greedy proxy under it, and each route's path,
 * where the routes' own methods take precedence. The stack wires ANY on each of these.
 */
export function catchAllPaths(routes: readonly Route[] = ROUTES): string[] {
  return ['', CATCH_ALL.proxyPath, ...methodsByPath(routes).keys()];
}

/** Distinct resource paths with the methods each allows (for the catch-all's 405 and its `Allow` header). */
export function methodsByPath(routes: readonly Route[] = ROUTES): Map<string, HttpMethod[]> {
  const byPath = new Map<string, HttpMethod[]>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? [];
    methods.push(route.method);
    byPath.set(route.path, methods);
  }
  return byPath;
}

export function routeFor(operationId: OperationId): Route {
  const route = ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`No route for operation ${operationId}`);
  return route;
}

/**
 * The names a project's usage is counted under, in the order the usage history stacks them:
 * each operation of the route table, then the catch-all (every other path and method).
 */
export const USAGE_OPERATIONS: readonly HandlerName[] = [
  ...ROUTES.map((route) => route.operationId),
  CATCH_ALL.name,
];
