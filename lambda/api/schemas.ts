import { PET_STATUSES } from '../domain/pet';
import { MAX_SAFE_ID, NAME_MAX_LENGTH } from './limits';

/**
 * JSON Schemas of the resources, stated once. The handlers validate with them
 * (see validate.ts); the published interface is generated from them.
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
  description: "The animal's name.",
} as const;

const CategoryId = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  maximum: MAX_SAFE_ID,
  description: 'Identifier of the category the animal belongs to.',
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
} as const;

export const PetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'categoryId', 'status'],
  properties: {
    id: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: MAX_SAFE_ID,
      description: 'Unique identifier.',
    },
    name: PetName,
    categoryId: CategoryId,
    status: PetStatusSchema,
  },
} as const;
