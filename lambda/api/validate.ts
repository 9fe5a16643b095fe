/**
 * A small JSON Schema validator for the keywords our schemas use. Zero
 * dependencies and nothing compiled at start-up, so it costs the bundle and the
 * cold start almost nothing; messages name the field and the rule it broke.
 */

import type { Schema } from './schema';

export type { Schema } from './schema';

const patterns = new Map<string, RegExp>();

function compiled(pattern: string): RegExp {
  let regex = patterns.get(pattern);
  if (!regex) {
    regex = new RegExp(pattern, 'u');
    patterns.set(pattern, regex);
  }
  return regex;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a fractional number';
  return `a ${typeof value}`;
}

/** Validates `value`; returns one message per problem (empty when valid). `label` names the value in messages. */
export function validate(schema: Schema, value: unknown, label: string): string[] {
  switch (schema.type) {
    case 'object':
      return validateObject(schema, value, label);
    case 'string':
      return validateString(schema, value, label);
    case 'integer':
      return validateInteger(schema, value, label);
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${label} must be true or false, not ${describe(value)}`];
    default:
      return validateEnum(schema, value, label);
  }
}

function validateObject(schema: Schema, value: unknown, label: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [`${label} must be a JSON object, not ${describe(value)}`];
  }
  const properties = schema.properties ?? {};
  const problems: string[] = [];
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name)) problems.push(`${name} is required`);
  }
  for (const [name, field] of Object.entries(value)) {
    const fieldSchema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (fieldSchema) {
      problems.push(...validate(fieldSchema, field, name));
    } else if (schema.additionalProperties === false) {
      problems.push(
        `unknown field ${JSON.stringify(name)}; allowed fields are ${Object.keys(properties).join(', ')}`,
      );
    }
  }
  return problems;
}

function validateString(schema: Schema, value: unknown, label: string): string[] {
  if (typeof value !== 'string') return [`${label} must be a string, not ${describe(value)}`];
  // A lone surrogate cannot be stored as UTF-8: refuse it here rather than fail in the store.
  if (!value.isWellFormed()) return [`${label} must be well-formed Unicode (it contains a lone surrogate)`];
  if (schema.enum) return validateEnum(schema, value, label);
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) {
    return [
      schema.minLength === 1
        ? `${label} must not be empty`
        : `${label} must be at least ${schema.minLength} characters`,
    ];
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    return [`${label} must be at most ${schema.maxLength} characters (got ${length})`];
  }
  if (schema.pattern !== undefined && !compiled(schema.pattern).test(value)) {
    return [`${label} ${schema['x-pattern-message'] ?? `must match the pattern ${schema.pattern}`}`];
  }
  return [];
}

function validateInteger(schema: Schema, value: unknown, label: string): string[] {
  const range = `from ${schema.minimum ?? '-∞'} to ${schema.maximum ?? '∞'}`;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return [`${label} must be an integer ${range}, not ${describe(value)}`];
  }
  if (
    (schema.minimum !== undefined && value < schema.minimum) ||
    (schema.maximum !== undefined && value > schema.maximum)
  ) {
    return [`${label} must be an integer ${range}`];
  }
  return [];
}

function validateEnum(schema: Schema, value: unknown, label: string): string[] {
  if (schema.enum && !(typeof value === 'string' && schema.enum.includes(value))) {
    return [`${label} must be one of ${schema.enum.join(', ')}`];
  }
  return [];
}
