import type { RequestBody } from './routes';

/**
 * The request models API Gateway validates bodies with, converted from the schemas
 * in schemas.ts. API Gateway models are JSON Schema draft 4 and refuse what draft 4
 * does not know, so annotations that exist for our validator or for OpenAPI
 * (`format: int64`, `x-…`, `default`) are dropped; `const` becomes a one-value `enum`.
 * The CDK stack deploys these models and the local server validates with the same ones.
 */

/** The draft-4 meta-schema every model declares. */
export const DRAFT_04 = 'http://json-schema.org/draft-04/schema#';

/** A JSON Schema as plain JSON. */
export type JsonSchemaObject = { readonly [keyword: string]: unknown };

/** Keywords kept as they are (draft 4 validation and annotation keywords our schemas use). */
const KEPT = new Set([
  'type',
  'enum',
  'required',
  'additionalProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'description',
  'title',
]);

/** Keywords whose value is a map of names to subschemas. */
const SCHEMA_MAPS = new Set(['properties']);
/** Keywords whose value is one subschema. */
const SUBSCHEMAS = new Set(['items']);

function convert(schema: JsonSchemaObject): JsonSchemaObject {
  const converted: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(keyword)) {
      converted[keyword] = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchemaObject>).map(([name, sub]) => [name, convert(sub)]),
      );
    } else if (SUBSCHEMAS.has(keyword)) {
      converted[keyword] = convert(value as JsonSchemaObject);
    } else if (keyword === 'const') {
      converted.enum = [value];
    } else if (KEPT.has(keyword)) {
      converted[keyword] = Array.isArray(value) ? [...(value as unknown[])] : value;
    } else if (keyword !== 'format' && keyword !== 'default' && !keyword.startsWith('x-')) {
      throw new Error(
        `Keyword ${JSON.stringify(keyword)} has no draft-4 conversion: extend lambda/api/gateway-models.ts or leave it out of the schema.`,
      );
    }
  }
  return converted;
}

/** The draft-4 model of a request body, as API Gateway receives it. */
export function gatewayModel(body: RequestBody): JsonSchemaObject {
  return { $schema: DRAFT_04, title: body.name, ...convert(body.schema as JsonSchemaObject) };
}

/** The media type API Gateway selects a model by; a request without a Content-Type counts as JSON. */
export const MODEL_CONTENT_TYPE = 'application/json';
