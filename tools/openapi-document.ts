import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../lambda/api/cors';
import { ERROR_CATALOGUE, type ErrorCode } from '../lambda/api/errors';
import { RETRY_AFTER_SECONDS } from '../lambda/api/gateway-errors';
import { MAX_BODY_BYTES, NAME_MAX_LENGTH, PAGE_LIMIT } from '../lambda/api/limits';
import { planTableRows } from './plan-table';
import { API_VERSION_PREFIX, type HeaderDoc, ROUTES, type Route } from '../lambda/api/routes';
import {
  ErrorSchema,
  NewPetSchema,
  PATH_PARAMETER_SCHEMAS,
  PetSchema,
  PetsSchema,
  PetStatusSchema,
  QUERY_PARAMETER_SCHEMAS,
  type QueryParameterName,
} from '../lambda/api/schemas';
import { deprecationHeaders } from '../lambda/middleware/deprecation';

/**
 * The OpenAPI 3.1 document of the service, generated from the route table, the
 * schemas, the error catalogue and the plan table (`npm run openapi` writes it to
 * openapi.json; a test keeps the checked-in file equal to this).
 */

/** Version of the published interface (doc/api.md, Versioning). */
export const INTERFACE_VERSION = '1.0.0';

type Json = Record<string, unknown>;

const JSON_MEDIA_TYPE = 'application/json';
const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

/** Who answers with a status: the service always (so its headers are always there), or sometimes the gateway. */
type Source = 'service' | 'service-or-gateway' | 'gateway';

interface ErrorResponse {
  readonly codes: readonly ErrorCode[];
  readonly source: Source;
  readonly description: string;
  readonly headers?: Readonly<Record<string, Json>>;
}

const header = (schema: Json, description: string, required: boolean): Json => ({
  description,
  required,
  schema,
});

const retryAfter = (description: string) =>
  header({ type: 'integer', minimum: 1 }, `Seconds to wait before retrying. ${description}`, true);

/** The rate-limit headers (plans.ts, domain/rate-limit.ts): required where the service always answers. */
function rateLimitHeaders(required: boolean): Record<string, Json> {
  const absent = required
    ? ''
    : ' Absent when API Gateway or the firewall answered without running the service, or when the counters could not be reached.';
  return {
    'X-RateLimit-Limit': header(
      { type: 'integer', minimum: 1 },
      `Requests allowed in the window closest to exhaustion (per minute or per day).${absent}`,
      required,
    ),
    'X-RateLimit-Remaining': header(
      { type: 'integer', minimum: 0 },
      `Requests left in that window.${absent}`,
      required,
    ),
    'X-RateLimit-Reset': header(
      { type: 'integer', minimum: 0 },
      `Unix time (seconds) at which that window resets.${absent}`,
      required,
    ),
    'RateLimit-Policy': header(
      { type: 'string', pattern: '^"minute";q=[0-9]+;w=60, "day";q=[0-9]+;w=86400$' },
      `Both windows of the caller's plan (draft-ietf-httpapi-ratelimit-headers), e.g. \`"minute";q=60;w=60, "day";q=1000;w=86400\`.${absent}`,
      required,
    ),
    RateLimit: header(
      { type: 'string', pattern: '^"minute";r=[0-9]+;t=[0-9]+, "day";r=[0-9]+;t=[0-9]+$' },
      `Requests remaining and seconds to reset of both windows, e.g. \`"minute";r=59;t=42, "day";r=999;t=41000\`.${absent}`,
      required,
    ),
  };
}

const AUTH_CODES = ['missing_api_key', 'invalid_authorization', 'invalid_api_key'] as const;

/** Errors every operation can answer. */
function commonErrors(route: Route): Record<number, ErrorResponse> {
  const unauthorized: Record<number, ErrorResponse> = route.public
    ? {}
    : {
        401: {
          codes: AUTH_CODES,
          source: 'service',
          description: 'The API key is missing, malformed, unknown or revoked.',
          headers: {
            'WWW-Authenticate': header(
              { type: 'string', pattern: '^Bearer realm="animal-store"' },
              'RFC 6750 challenge; `error="invalid_token"` when a key was sent but is not valid.',
              true,
            ),
          },
        },
      };
  return {
    ...unauthorized,
    403: {
      codes: ['forbidden'],
      source: 'gateway',
      description: 'Refused by API Gateway or the firewall itself.',
    },
    413: {
      codes: ['payload_too_large'],
      source: 'service-or-gateway',
      description: `The request body exceeds ${MAX_BODY_BYTES} bytes (8 KiB), on any path: in AWS the firewall answers before the API.`,
    },
    429: {
      codes: ['rate_limited', 'temporarily_banned'],
      source: 'service-or-gateway',
      description:
        'Over the per-minute or per-day limit of the plan (or of the anonymous allowance), or banned for calling on while limited. Wait `Retry-After` seconds, then back off exponentially. Refused requests do not count.',
      headers: {
        'Retry-After': retryAfter(
          `To the end of the refusing window or of the ban; a fixed ${RETRY_AFTER_SECONDS} when API Gateway's own throttle answered.`,
        ),
      },
    },
    500: {
      codes: ['internal_error'],
      source: 'service-or-gateway',
      description: 'An unexpected error; nothing about it is revealed.',
    },
    502: {
      codes: ['bad_gateway'],
      source: 'gateway',
      description: 'API Gateway could not get a valid answer from the function.',
    },
    503: {
      codes: ['service_unavailable'],
      source: 'service-or-gateway',
      description: 'The data store (pets, keys or rate-limit counters) is unavailable or throttling.',
      headers: { 'Retry-After': retryAfter('1 for a store failure.') },
    },
    504: {
      codes: ['gateway_timeout'],
      source: 'gateway',
      description: 'The function did not answer within API Gateway’s timeout.',
    },
  };
}

/** The Error schema narrowed to the codes (and so the status) one response can carry. */
function errorSchemaFor(status: number, codes: readonly ErrorCode[]): Json {
  for (const code of codes) {
    if (ERROR_CATALOGUE[code].status !== status) {
      throw new Error(
        `Error code ${code} is listed under ${status} but has status ${ERROR_CATALOGUE[code].status}.`,
      );
    }
  }
  return {
    allOf: [ref('schemas', 'Error')],
    properties: { code: { enum: [...codes] }, status: { const: status } },
  };
}

/**
 * An Error response's content: the narrowed schema and an example of its first code. The
 * rendered page's sample would otherwise show the Error schema's first code and status
 * (`invalid_body`, 400) under every status.
 */
function errorContent(status: number, codes: readonly ErrorCode[]): Json {
  const [code] = codes as [ErrorCode, ...ErrorCode[]];
  return {
    [JSON_MEDIA_TYPE]: {
      schema: errorSchemaFor(status, codes),
      // The description as the message, without its Markdown: a sample shows it as plain text.
      example: { code, message: ERROR_CATALOGUE[code].description.replace(/`/g, ''), status },
    },
  };
}

function deprecationHeaderDocs(route: Route, required: boolean): Record<string, Json> {
  const { deprecation } = route;
  if (!deprecation) return {};
  const example = deprecationHeaders(deprecation, '{base}');
  return {
    Deprecation: header(
      { type: 'string', const: example.Deprecation },
      `RFC 9745: deprecated since ${deprecation.deprecatedAt.slice(0, 10)}.`,
      required,
    ),
    Sunset: header(
      { type: 'string', const: example.Sunset },
      `RFC 8594: removed on ${deprecation.sunsetAt.slice(0, 10)}; from then on the operation answers 410.`,
      required,
    ),
    Link: header(
      { type: 'string', pattern: `^<[^>]+${deprecation.replacementPath}>; rel="successor-version"$` },
      `The replacement: \`<{base}${deprecation.replacementPath}>; rel="successor-version"\`.`,
      required,
    ),
  };
}

function headerDocs(headers: Readonly<Record<string, HeaderDoc>>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, doc]) => [name, header(doc.schema, doc.description, doc.required)]),
  );
}

function responsesOf(route: Route): Json {
  const { success } = route.docs;
  const successHeaders = Object.entries(headerDocs(success.headers ?? {}));
  const responses: Record<string, Json> = {
    [success.status]: {
      description: success.description,
      headers: {
        ...rateLimitHeaders(true),
        ...deprecationHeaderDocs(route, true),
        ...Object.fromEntries(successHeaders),
      },
      content: {
        [JSON_MEDIA_TYPE]: {
          schema: typeof success.schema === 'string' ? ref('schemas', success.schema) : success.schema,
        },
      },
    },
  };
  const ownErrors = Object.entries(route.docs.errors).map(([status, { headers, ...error }]) => [
    status,
    {
      ...error,
      source: 'service',
      ...(headers ? { headers: headerDocs(headers) } : {}),
    } satisfies ErrorResponse,
  ]);
  const errors: Record<number, ErrorResponse> = { ...commonErrors(route), ...Object.fromEntries(ownErrors) };
  for (const status of Object.keys(errors)
    .map(Number)
    .sort((a, b) => a - b)) {
    const error = errors[status] as ErrorResponse;
    const always = error.source === 'service';
    const codes = error.codes.map((code) => `\`${code}\``).join(', ');
    responses[status] = {
      description: `${error.description} Codes: ${codes}.${error.source === 'gateway' ? ' Answered by API Gateway without running the service, so without rate-limit headers.' : ''}`,
      headers: {
        ...(error.source === 'gateway' ? {} : rateLimitHeaders(always)),
        ...(error.source === 'gateway' ? {} : deprecationHeaderDocs(route, always)),
        ...error.headers,
      },
      content: errorContent(status, error.codes),
    };
  }
  return responses;
}

const PARAMETER_COMPONENT: Record<QueryParameterName | keyof typeof PATH_PARAMETER_SCHEMAS, string> = {
  limit: 'Limit',
  status: 'Status',
  cursor: 'Cursor',
  petId: 'PetId',
};

function operationOf(route: Route): Json {
  const doc = route.docs;
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map(
    ([, name]) => name as keyof typeof PATH_PARAMETER_SCHEMAS,
  );
  const parameters: Json[] = [
    ...[...pathParameters, ...route.queryParameters].map((name) =>
      ref('parameters', PARAMETER_COMPONENT[name]),
    ),
    ...Object.entries(doc.requestHeaders ?? {}).map(([name, header]) => ({
      name,
      in: 'header',
      required: header.required,
      description: header.description,
      schema: header.schema,
    })),
  ];
  const deprecation = route.deprecation;
  return {
    operationId: route.operationId,
    summary: doc.summary,
    description: deprecation
      ? `${doc.description}\n\n**Deprecated** since ${deprecation.deprecatedAt.slice(0, 10)} and removed on ${deprecation.sunsetAt.slice(0, 10)}: from then on it answers 410 \`gone\`. Every response carries \`Deprecation\`, \`Sunset\` and \`Link: rel="successor-version"\`. Use \`GET ${deprecation.replacementPath}\` with a \`status\` filter instead.`
      : doc.description,
    tags: [doc.tag],
    ...(deprecation ? { deprecated: true, 'x-sunset': deprecation.sunsetAt.slice(0, 10) } : {}),
    security: route.public ? [{}, { bearerAuth: [] }] : [{ bearerAuth: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.requestBody
      ? {
          requestBody: {
            required: true,
            description: `A \`${route.requestBody.name}\` as \`application/json\` (UTF-8), at most ${MAX_BODY_BYTES} bytes.`,
            content: { [JSON_MEDIA_TYPE]: { schema: ref('schemas', route.requestBody.name) } },
          },
        }
      : {}),
    responses: responsesOf(route),
  };
}

function pathsOf(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of ROUTES) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, Json>)[route.method.toLowerCase()] = operationOf(route);
  }
  return paths;
}

function description(): string {
  const plans = planTableRows().map((row) => `| ${row.join(' | ')} |`);
  // A list, not a table: a narrow table column would wrap the codes mid-word.
  const codes = Object.entries(ERROR_CATALOGUE).map(
    ([code, { status, description: text }]) => `- \`${code}\` (${status}): ${text}`,
  );
  return [
    'An HTTP/JSON store of animals (pets) for sale.',
    '',
    '## Authentication',
    'Send your API key as a bearer token: `Authorization: Bearer <API key>`. Without a valid key every operation but `getOpenApi` answers 401.',
    '',
    '## Projects',
    "Every API key belongs to a project, which owns its plan and its pets: a key lists and reads only its own project's pets (another project's pet id answers 404, exactly as a missing one), and every pet it creates belongs to its project. Each project is also served at its own address, `https://<project>.<platform domain>/v1`, where only that project's keys are valid (any other key answers 401 `invalid_api_key`) and an address without a project answers 404 `not_found`. The base URLs below accept any project's key.",
    '',
    '## Errors',
    'Every non-2xx response, whoever produces it, has the body `{"code", "message", "status"}`. Every request under `/v1` is answered by the service, which names each problem it finds: a path that does not exist answers 404 `not_found`, a known path called with another method answers 405 `method_not_allowed` with an `Allow` header (see the `NotFound` and `MethodNotAllowed` responses), both with the rate-limit headers.',
    '',
    "Only what cannot reach the service is answered before it, without rate-limit headers: a path outside `/v1` (404), the firewall (413 for a body over 8 KiB, 429 for a flood of requests from one address, 403 for its managed rules), the gateway's throttle and daily quota (429), and the gateway's own failures (500, 502, 504). A stage that does not exist and a request that is not valid HTTP are refused by the platform without the Error body.",
    '',
    '### Error codes',
    '',
    ...codes,
    '',
    '## Browsers (CORS)',
    `A web page may call its project's own address (\`https://<project>.<platform domain>/v1\`) from the origins the project allows (none unless its operators set some). Preflights are answered (204, cached for ${CORS_MAX_AGE_SECONDS} s) and may ask for ${CORS_ALLOWED_HEADERS.map((name) => `\`${name}\``).join(', ')}; every response to an allowed origin lets the page read ${CORS_EXPOSED_HEADERS.map((name) => `\`${name}\``).join(', ')}. No cookies are involved: send the key in \`Authorization\`. A preflight from another origin, or for a method the path does not have, answers 403 \`cors_not_allowed\`. The base URLs below allow no browser origin.`,
    '',
    '## Rate limits',
    "Per project (all of a project's API keys together), in fixed UTC minute and day windows; requests without a valid key are counted per client IP. Every response the service produces carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`, `RateLimit-Policy` and `RateLimit`; a 429 carries `Retry-After`. Refused requests do not count; calling on while limited leads to a temporary ban.",
    '',
    '| Plan | Requests per minute | Requests per day |',
    '| --- | --- | --- |',
    ...plans,
    '',
    '## Limits',
    `- \`limit\` of \`listPets\`: ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}, default ${PAGE_LIMIT.default}.`,
    `- \`name\`: 1 to ${NAME_MAX_LENGTH} characters (Unicode code points), not only whitespace.`,
    `- Request body: at most ${MAX_BODY_BYTES} bytes (8 KiB), \`application/json\` in UTF-8.`,
    '- Ids: integers from 1 to 2^53 − 1 (exact in JavaScript).',
    '',
    '## Versioning',
    `The version is the first path segment (\`${API_VERSION_PREFIX}\`). Within it changes are additive only (new operations, optional request fields, response fields and headers, error codes): ignore unknown response fields. A deprecated operation announces itself with \`Deprecation\`, \`Sunset\` and \`Link\` headers and answers 410 from its sunset date.`,
  ].join('\n');
}

/** The local mode's address (`npm start` with its default PORT). */
export const LOCAL_SERVER_URL = `http://127.0.0.1:3000${API_VERSION_PREFIX}`;

// Redoc shows server descriptions as plain text: no Markdown in them.
function serverFor(stage: 'production' | 'staging'): Json {
  return {
    url: `https://{apiId}.execute-api.{region}.amazonaws.com/${stage}${API_VERSION_PREFIX}`,
    description: `${stage === 'production' ? 'Production' : 'Staging'}: the stack output BaseUrl of AnimalStore-${stage}`,
    variables: {
      apiId: { default: 'a1b2c3d4e5', description: 'Id of the REST API of the stack.' },
      region: { default: 'eu-west-1', description: 'AWS region the stack is deployed in.' },
    },
  };
}

const allowHeader = header(
  { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' },
  'The methods the path has, e.g. `GET, POST`.',
  true,
);

/** The whole OpenAPI document. */
export function buildOpenApiDocument(): Json {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Animal Store Service',
      version: INTERFACE_VERSION,
      summary: 'List, add and fetch animals for sale.',
      description: description(),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      serverFor('production'),
      serverFor('staging'),
      { url: LOCAL_SERVER_URL, description: 'Local mode: npm start on this machine (PORT changes the port)' },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'pets', description: 'The animals of the store.' },
      { name: 'interface', description: 'The published interface itself.' },
    ],
    paths: pathsOf(),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'ask_<key id>_<secret>',
          description: 'The API key as a bearer token.',
        },
      },
      schemas: {
        PetStatus: PetStatusSchema,
        NewPet: {
          ...NewPetSchema,
          properties: {
            ...NewPetSchema.properties,
            status: {
              ...ref('schemas', 'PetStatus'),
              description: NewPetSchema.properties.status.description,
            },
          },
        },
        Pet: { ...PetSchema, properties: { ...PetSchema.properties, status: ref('schemas', 'PetStatus') } },
        Pets: { ...PetsSchema, items: ref('schemas', 'Pet') },
        Error: ErrorSchema,
      },
      parameters: {
        Limit: {
          name: 'limit',
          in: 'query',
          required: false,
          description: QUERY_PARAMETER_SCHEMAS.limit.description,
          schema: QUERY_PARAMETER_SCHEMAS.limit,
        },
        Status: {
          name: 'status',
          in: 'query',
          required: false,
          description: QUERY_PARAMETER_SCHEMAS.status.description,
          schema: QUERY_PARAMETER_SCHEMAS.status,
        },
        Cursor: {
          name: 'cursor',
          in: 'query',
          required: false,
          description: QUERY_PARAMETER_SCHEMAS.cursor.description,
          schema: QUERY_PARAMETER_SCHEMAS.cursor,
        },
        PetId: {
          name: 'petId',
          in: 'path',
          required: true,
          description: PATH_PARAMETER_SCHEMAS.petId.description,
          schema: PATH_PARAMETER_SCHEMAS.petId,
        },
      },
      responses: {
        NotFound: {
          description:
            'No such path, for any method. Under `/v1` the service answers, with the rate-limit headers; for a path outside `/v1` (another version prefix, or none) API Gateway answers, without them.',
          headers: rateLimitHeaders(false),
          content: errorContent(404, ['not_found']),
        },
        MethodNotAllowed: {
          description:
            'A known path called with a method it does not have, answered by the service; `Allow` lists the methods.',
          headers: { Allow: allowHeader, ...rateLimitHeaders(true) },
          content: errorContent(405, ['method_not_allowed']),
        },
        CorsNotAllowed: {
          description:
            "A CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) refused by the service, without `Access-Control-*` headers: the origin is not one the project of the address allows, or the method is not one the path has. An allowed preflight answers 204; see the description's section on browsers.",
          headers: rateLimitHeaders(true),
          content: errorContent(403, ['cors_not_allowed']),
        },
        PayloadTooLarge: {
          description: `A body over ${MAX_BODY_BYTES} bytes on any path, refused at the edge.`,
          content: errorContent(413, ['payload_too_large']),
        },
      },
    },
  };
}
