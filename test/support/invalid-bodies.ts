import { NAME_MAX_LENGTH } from '../../lambda/api/limits';

/**
 * Request bodies `createPet` refuses, with what the handler says about each: it is the
 * only place a body is validated, in the deployed stack and locally alike.
 */
export const INVALID_BODIES: [name: string, body: unknown, message: RegExp][] = [
  ['name missing', { categoryId: 1 }, /name is required/],
  ['categoryId missing', { name: 'Rex' }, /categoryId is required/],
  ['both missing', {}, /name is required; categoryId is required/],
  ['name empty', { name: '', categoryId: 1 }, /name must not be empty/],
  ['name blank', { name: '  ', categoryId: 1 }, /name must contain at least one non-whitespace character/],
  [
    'name too long',
    { name: 'x'.repeat(NAME_MAX_LENGTH + 1), categoryId: 1 },
    /name must be at most 100 characters/,
  ],
  ['name a number', { name: 5, categoryId: 1 }, /name must be a string/],
  [
    'categoryId a string',
    { name: 'Rex', categoryId: '1' },
    /categoryId must be an integer from 1 to 9007199254740991, not a string/,
  ],
  ['categoryId a float', { name: 'Rex', categoryId: 1.5 }, /categoryId must be an integer .*fractional/],
  ['categoryId a boolean', { name: 'Rex', categoryId: true }, /categoryId must be an integer .*boolean/],
  ['categoryId null', { name: 'Rex', categoryId: null }, /categoryId must be an integer .*null/],
  ['categoryId zero', { name: 'Rex', categoryId: 0 }, /categoryId must be an integer from 1/],
  ['categoryId negative', { name: 'Rex', categoryId: -1 }, /categoryId must be an integer from 1/],
  [
    'categoryId beyond 2^53 - 1',
    '{"name":"Rex","categoryId":9007199254740993}',
    /categoryId must be an integer from 1 to 9007199254740991/,
  ],
  [
    'status unknown',
    { name: 'Rex', categoryId: 1, status: 'lost' },
    /status must be one of available, pending, sold/,
  ],
  ['status null', { name: 'Rex', categoryId: 1, status: null }, /status must be a string/],
  ['an unknown field', { name: 'Rex', categoryId: 1, id: 5 }, /unknown field "id"/],
  ['a prototype key', '{"name":"Rex","categoryId":1,"__proto__":{"x":1}}', /unknown field "__proto__"/],
  ['an array', [{ name: 'Rex', categoryId: 1 }], /must be a JSON object, not an array/],
  ['a string', '"Rex"', /must be a JSON object, not a string/],
  ['null', 'null', /must be a JSON object, not null/],
];

/** Bodies that are not JSON at all. */
export const MALFORMED_JSON_BODIES = [
  '{"name": "Rex",',
  '{name: "Rex"}',
  "{'name':'Rex'}",
  '{"name":"Rex","categoryId":1}}',
];
