import { MAX_SAFE_ID, NAME_MAX_LENGTH, PAGE_LIMIT } from '../core/limits';
import { PET_STATUSES } from '../core/pet';
import { ERROR_CATALOGUE } from './api-error';

/**
 * JSON Schemas of the resources and parameters, stated once. The handlers validate
 * with them (see validate.ts; API Gateway does not) and the OpenAPI document is
 * generated from them (tools/openapi-document.ts). They use only the keywords
 * validate.ts knows, plus annotations (`description`, `format`, `default`, `x-…`)
 * that it ignores.
 */

export const PetStatusSchema = {
  type: 'string',
  enum: [...PET_STATUSES],
  description: 'Availability of the animal.',
} as const;

const PetName = {
  type: 'string',
  minLength: 1,
  maxLength: NAME_MAX_LENGTH,
  pattern: '\\S',
  'x-pattern-message': 'must contain at least one non-whitespace character',
  description: `The animal's name: 1 to ${NAME_MAX_LENGTH} characters (Unicode code points), at least one of them not whitespace.`,
} as const;

const CategoryId = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  maximum: MAX_SAFE_ID,
  description: 'Identifier of the category the animal belongs to.',
} as const;

export const PetIdSchema = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  maximum: MAX_SAFE_ID,
  description: 'Unique identifier of the animal, assigned by the service; ascending in creation order.',
} as const;

export const NewPetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'categoryId'],
  properties: {
    name: PetName,
    categoryId: CategoryId,
    status: { ...PetStatusSchema, description: 'Availability of the animal; `available` when omitted.' },
  },
  description: 'An animal to add. Unknown fields are refused.',
} as const;

export const PetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'categoryId', 'status'],
  properties: {
    id: PetIdSchema,
    name: PetName,
    categoryId: CategoryId,
    status: PetStatusSchema,
  },
  description: 'An animal in the store.',
} as const;

export const PetsSchema = {
  type: 'array',
  items: PetSchema,
  description: 'One page of animals in ascending id order.',
} as const;

export const ErrorSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'message', 'status'],
  properties: {
    code: {
      type: 'string',
      enum: Object.keys(ERROR_CATALOGUE),
      description: 'Machine-readable error code.',
    },
    message: { type: 'string', minLength: 1, description: 'Human-readable description.' },
    status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code.' },
  },
  description: 'Every non-2xx response, whoever produces it, has this body.',
} as const;

/** A query parameter an operation of the route table may accept. */
export type QueryParameterName = 'limit' | 'status' | 'cursor';

/** Schemas of the query parameters, by name (their values arrive as text; these describe what the text means). */
export const QUERY_PARAMETER_SCHEMAS = {
  limit: {
    type: 'integer',
    minimum: PAGE_LIMIT.min,
    maximum: PAGE_LIMIT.max,
    default: PAGE_LIMIT.default,
    description: `Maximum number of animals returned, written in plain decimal (${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}; default ${PAGE_LIMIT.default}).`,
  },
  status: { ...PetStatusSchema, description: 'Return only animals with this status.' },
  cursor: {
    type: 'string',
    pattern: '^[A-Za-z0-9_-]+$',
    description:
      'Opaque position from the `Link: rel="next"` header of the previous page; only valid with the same `status` filter.',
  },
} as const satisfies Record<QueryParameterName, object>;

/** Schemas of the path parameters, by name. */
export const PATH_PARAMETER_SCHEMAS = {
  petId: { ...PetIdSchema, description: 'Identifier of the animal, in plain decimal.' },
} as const;
