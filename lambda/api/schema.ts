/**
 * The JSON Schema keywords our schemas use, and the TypeScript type of the values a schema
 * accepts, so that a body's type is its schema's and is never written out again. No Node and no
 * run-time code: the console page type-checks against it (console/src/tsconfig.json has no Node).
 */

export interface Schema {
  readonly type?: 'object' | 'string' | 'integer' | 'boolean';
  readonly enum?: readonly string[];
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly 'x-pattern-message'?: string;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** `{a: 1} & {b?: 2}` shown as one object. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

type ObjectValue<Properties, Required> = Flat<
  { [K in keyof Properties & Required]: SchemaValue<Properties[K]> } & {
    [K in Exclude<keyof Properties, Required>]?: SchemaValue<Properties[K]>;
  }
>;

/**
 * The type of a value `validate(schema, value)` accepts, for a schema declared `as const`:
 * an object's required properties are required, the others optional.
 */
export type SchemaValue<S> = S extends { readonly enum: readonly (infer Value)[] }
  ? Value
  : S extends { readonly type: 'string' }
    ? string
    : S extends { readonly type: 'integer' }
      ? number
      : S extends { readonly type: 'boolean' }
        ? boolean
        : S extends { readonly type: 'object'; readonly properties: infer Properties }
          ? ObjectValue<Properties, S extends { readonly required: readonly (infer Name)[] } ? Name : never>
          : unknown;
