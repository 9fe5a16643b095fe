import { NAME_MAX_LENGTH } from '../../../lambda/api/limits';
import { NewPetSchema } from '../../../lambda/api/schemas';
import { validate } from '../../../lambda/api/validate';

const valid = { name: 'Rex', categoryId: 1 };
const check = (body: unknown) => validate(NewPetSchema, body, 'the request body');

describe('NewPet validation', () => {
  it('accepts a minimal pet and one with every field', () => {
    expect(check(valid)).toEqual([]);
    expect(check({ ...valid, status: 'sold' })).toEqual([]);
    expect(check({ name: 'x'.repeat(NAME_MAX_LENGTH), categoryId: Number.MAX_SAFE_INTEGER })).toEqual([]);
  });

  it.each([
    ['an array', []],
    ['a string', 'Rex'],
    ['a number', 3],
    ['null', null],
  ])('refuses a body that is %s', (kind, body) => {
    expect(check(body)).toEqual([
      `the request body must be a JSON object, not ${kind === 'a number' ? 'a number' : kind}`,
    ]);
  });

  it('names each missing required field', () => {
    expect(check({})).toEqual(['name is required', 'categoryId is required']);
  });

  it('refuses unknown fields, including prototype keys', () => {
    expect(check({ ...valid, color: 'brown' })).toEqual([
      'unknown field "color"; allowed fields are name, categoryId, status',
    ]);
    expect(check(JSON.parse('{"name":"Rex","categoryId":1,"__proto__":{"admin":true}}'))).toEqual([
      'unknown field "__proto__"; allowed fields are name, categoryId, status',
    ]);
  });

  it.each([
    ['', 'name must not be empty'],
    ['   ', 'name must contain at least one non-whitespace character'],
    [
      'x'.repeat(NAME_MAX_LENGTH + 1),
      `name must be at most ${NAME_MAX_LENGTH} characters (got ${NAME_MAX_LENGTH + 1})`,
    ],
  ])('refuses the name %j', (name, message) => {
    expect(check({ ...valid, name })).toEqual([message]);
  });

  it('refuses a name with a lone surrogate, which no store could keep as UTF-8', () => {
    expect(check({ ...valid, name: 'Rex\ud800' })).toEqual([
      'name must be well-formed Unicode (it contains a lone surrogate)',
    ]);
  });

  it('counts name length in characters, not UTF-16 units', () => {
    expect(check({ ...valid, name: '🐶'.repeat(NAME_MAX_LENGTH) })).toEqual([]);
  });

  it.each([
    [42, 'name must be a string, not a number'],
    [null, 'name must be a string, not null'],
  ])('refuses a non-string name %j', (name, message) => {
    expect(check({ ...valid, name })).toEqual([message]);
  });

  const range = `from 1 to ${Number.MAX_SAFE_INTEGER}`;
  it.each([
    ['1', `categoryId must be an integer ${range}, not a string`],
    [1.5, `categoryId must be an integer ${range}, not a fractional number`],
    [true, `categoryId must be an integer ${range}, not a boolean`],
    [null, `categoryId must be an integer ${range}, not null`],
    [0, `categoryId must be an integer ${range}`],
    [-3, `categoryId must be an integer ${range}`],
    [2 ** 53, `categoryId must be an integer ${range}`],
  ])('refuses categoryId %j', (categoryId, message) => {
    expect(check({ ...valid, categoryId })).toEqual([message]);
  });

  it.each(['Available', 'lost', '', 1])('refuses status %j', (status) => {
    expect(check({ ...valid, status })).toEqual([
      typeof status === 'string'
        ? 'status must be one of available, pending, sold'
        : 'status must be a string, not a number',
    ]);
  });
});

describe('boolean validation', () => {
  const schema = {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' }, redirect: { type: 'boolean' } },
  } as const;
  const checkFlag = (body: unknown) => validate(schema, body, 'the request body');

  it.each([true, false])('accepts %j, and its absence when optional', (redirect) => {
    expect(checkFlag({ name: 'a', redirect })).toEqual([]);
    expect(checkFlag({ name: 'a' })).toEqual([]);
  });

  it.each([
    ['true', 'a string'],
    [1, 'a number'],
    [0, 'a number'],
    [null, 'null'],
    [[true], 'an array'],
    [{}, 'an object'],
  ])('refuses %j', (redirect, kind) => {
    expect(checkFlag({ name: 'a', redirect })).toEqual([`redirect must be true or false, not ${kind}`]);
  });
});
