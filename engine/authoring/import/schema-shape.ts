import { arr, entries, isObj, isRef, obj, str, type Obj } from './json-access.ts';

/**
 * What a JSON Schema of an OpenAPI 3.1 description says, read the way the
 * importer needs it: its one type, its properties once `allOf` is merged and
 * `oneOf`/`anyOf` variants are joined. A circular `$ref` left in place reads
 * as a schema of unknown shape. Every walk is bounded (MERGE_DEPTH).
 */
export type SchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

const TYPES: readonly string[] = ['string', 'number', 'integer', 'boolean', 'object', 'array'];
/** How deep `allOf` inside `allOf` is merged; a description nesting more is read as far as that. */
const MERGE_DEPTH = 8;

/** The schema with its `allOf` merged in (properties and required joined, the first value of any other keyword kept). */
export function merged(schema: unknown, depth = 0): Obj {
  const own = obj(schema) ?? {};
  if (isRef(own) || !Array.isArray(own.allOf) || depth >= MERGE_DEPTH) return own;
  const result: Obj = { ...own };
  delete result.allOf;
  const properties: Obj = { ...(obj(own.properties) ?? {}) };
  const required = new Set(arr(own.required).filter((r): r is string => typeof r === 'string'));
  for (const part of own.allOf) {
    const piece = merged(part, depth + 1);
    for (const [name, value] of entries(piece.properties)) if (!Object.hasOwn(properties, name)) properties[name] = value;
    for (const name of arr(piece.required)) if (typeof name === 'string') required.add(name);
    for (const [key, value] of Object.entries(piece)) if (key !== 'properties' && key !== 'required' && !Object.hasOwn(result, key)) result[key] = value;
  }
  if (Object.keys(properties).length) result.properties = properties;
  if (required.size) result.required = [...required];
  return result;
}

/** The variants of a `oneOf`/`anyOf` schema (merged), or none. */
export function variants(schema: Obj): Obj[] {
  const list = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : [];
  return list.map((v) => merged(v)).filter((v) => !isNullOnly(v));
}

function isNullOnly(schema: Obj): boolean {
  return schema.type === 'null' || (Array.isArray(schema.type) && schema.type.every((t) => t === 'null'));
}

/**
 * The schema's one type: the first that is not `null` of `type`, else what
 * its keywords imply (properties: object, items: array, an enum's values),
 * else its variants' when they agree on one. Undefined when nothing says.
 */
export function typeOf(schema: unknown): SchemaType | undefined {
  const s = merged(schema);
  const declared = (Array.isArray(s.type) ? s.type : [s.type]).find((t): t is SchemaType => typeof t === 'string' && TYPES.includes(t));
  if (declared) return declared;
  if (isObj(s.properties) || isObj(s.additionalProperties)) return 'object';
  if (s.items !== undefined) return 'array';
  const values = arr(s.enum).filter((v) => v !== null);
  if (values.length) return scalarType(values[0]);
  if (s.const !== undefined && s.const !== null) return scalarType(s.const);
  // A variant that says nothing (`{}`, "anything else") does not decide the type.
  const kinds = new Set(variants(s).filter((v) => Object.keys(v).length > 0).map((v) => typeOf(v)));
  if (kinds.size === 1) return [...kinds][0];
  if (kinds.has('integer') && kinds.has('number') && kinds.size === 2) return 'number';
  return undefined;
}

function scalarType(value: unknown): SchemaType | undefined {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  if (isObj(value)) return 'object';
  return undefined;
}

/**
 * An object schema's properties and which are required: merged `allOf`, and
 * for `oneOf`/`anyOf` every variant's properties (required only where every
 * variant requires it).
 */
export function objectShape(schema: unknown): { properties: [string, Obj][]; required: Set<string> } {
  const s = merged(schema);
  const properties = new Map<string, Obj>();
  for (const [name, value] of entries(s.properties)) properties.set(name, merged(value));
  const required = new Set(arr(s.required).filter((r): r is string => typeof r === 'string'));
  const options = variants(s).filter((v) => typeOf(v) === 'object' || isObj(v.properties));
  if (options.length) {
    let common: Set<string> | undefined;
    for (const option of options) {
      for (const [name, value] of entries(option.properties)) if (!properties.has(name)) properties.set(name, merged(value));
      const mine = new Set(arr(option.required).filter((r): r is string => typeof r === 'string'));
      common = common ? new Set([...common].filter((r) => mine.has(r))) : mine;
    }
    for (const name of common ?? []) required.add(name);
  }
  return { properties: [...properties], required };
}

/** The element schema of an array schema. */
export function itemsOf(schema: unknown): Obj {
  return merged(merged(schema).items);
}

/** The schema's enum values that an argument option can hold (text, numbers, booleans). */
export function enumValues(schema: Obj): (string | number | boolean)[] | undefined {
  const values = arr(schema.enum).filter((v): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
  return values.length ? [...new Set(values)] : undefined;
}

export function description(schema: unknown): string | undefined {
  const s = obj(schema);
  return s ? (str(s.description) ?? str(s.title)) : undefined;
}

export function exampleOf(schema: unknown): unknown {
  const s = obj(schema);
  if (!s) return undefined;
  if (s.example !== undefined) return s.example;
  const list = arr(s.examples);
  return list.length ? list[0] : undefined;
}

