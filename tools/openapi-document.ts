import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../lambda/api/cors';
import { ERROR_CATALOGUE } from '../lambda/api/errors';
import { MAX_BODY_BYTES, NAME_MAX_LENGTH, PAGE_LIMIT } from '../lambda/api/limits';
import {
  errorContent,
  header,
  type Json,
  JSON_MEDIA_TYPE,
  rateLimitHeaderComponents,
  rateLimitHeaders,
  ref,
  responsesOf,
} from './openapi-responses';
import { planTableRows } from './plan-table';
import { API_VERSION_PREFIX, ROUTES, type Route } from '../lambda/api/routes';
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

/**
 * The OpenAPI 3.1 document of the service, generated from the route table, the
 * schemas, the error catalogue and the plan table (`npm run openapi` writes it to
 * openapi.json; a test keeps the checked-in file equal to this).
 */

/** Version of the published interface (doc/api.md, Versioning). */
export const INTERFACE_VERSION = '1.0.0';

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
      headers: rateLimitHeaderComponents(),
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
