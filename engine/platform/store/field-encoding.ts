/**
 * How records are written to both stores, so any JSON a client may send
 * (within the limits of engine/platform/validation/json-limits.ts) is stored and read
 * back exactly as given, at a cost linear in its size.
 *
 * Keys. NeDB and MongoDB refuse field names with a `.` or a leading `$`;
 * MongoDB also a NUL; NeDB's deep copy turns a `__proto__` key into a
 * prototype. Each key is escaped on write and unescaped on read:
 *
 *   %  -> %25      .  -> %2E      NUL -> %00
 *   a leading $    -> %24         the key __proto__ -> %5F_proto__
 *
 * Every `%` in a stored key starts one of these escapes, so reading is exact,
 * and ordinary names (every field the engine itself writes) are unchanged.
 * Field paths in filters, sorts and updates are escaped the same way, segment
 * by segment (`metadata.$x` -> `metadata.%24x`).
 *
 * Arrays within arrays. NeDB's key check visits the items of an array twice
 * (once as items, once as properties), so its cost doubles with each array
 * nested in an array: a 70-byte body of 26 nested arrays held the event loop
 * for 10 s. An array inside another array (at any depth below it) is written
 * as `{"%json": "<its JSON text>"}`: no stored path crosses more than one
 * array, so every walk of a stored record is linear in its size. `%json` can
 * be no escaped key (`%` followed by no two hex digits), so it is never
 * mistaken for data. Filters reach values through one level of arrays, as
 * before (`apps.appSlug==x`, `metadata.tags==x`), not inside arrays of arrays.
 *
 * Only plain objects and arrays are walked; Dates and other values are kept
 * as they are.
 */

/** The key of a value written as its JSON text: an array inside an array, or (in a SQL store's JSONB) a text holding NUL. */
export const NESTED_JSON = '%json';

export function encodeKey(key: string): string {
  let out = key.replace(/[%.\0]/g, (c) => (c === '%' ? '%25' : c === '.' ? '%2E' : '%00'));
  if (out.startsWith('$')) out = `%24${out.slice(1)}`;
  if (out === '__proto__') out = '%5F_proto__';
  return out;
}

export function decodeKey(key: string): string {
  return key.includes('%') ? key.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : key;
}

/** A dotted field path (`metadata.api`), each segment escaped as a key. */
export function encodePath(path: string): string {
  return path.split('.').map(encodeKey).join('.');
}

export interface EncodeOptions {
  /**
   * A text holding NUL written as `{"%json": "<its JSON text>"}` too: PostgreSQL's JSONB cannot hold
   * U+0000 (the SQL stores); NeDB and MongoDB can, and keep it as it is.
   */
  textWithNul?: boolean;
}

/** A record (or any value in one) as it is written to the store. */
export function encodeValue(value: unknown, inArray = false, options: EncodeOptions = {}): unknown {
  if (Array.isArray(value)) {
    if (inArray) return { [NESTED_JSON]: JSON.stringify(value) };
    return value.map((item) => encodeValue(item, true, options));
  }
  if (options.textWithNul && typeof value === 'string' && value.includes('\0')) return { [NESTED_JSON]: JSON.stringify(value) };
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[encodeKey(key)] = encodeValue(value[key], inArray, options);
  return out;
}

/** A stored record (or value) as the engine sees it: encodeValue undone. */
export function decodeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === NESTED_JSON && typeof value[NESTED_JSON] === 'string') return JSON.parse(value[NESTED_JSON]) as unknown;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const name = decodeKey(key);
    const item = decodeValue(value[key]);
    // `__proto__` is an ordinary key of the data: an own property, never the prototype.
    if (name === '__proto__') Object.defineProperty(out, name, { value: item, enumerable: true, writable: true, configurable: true });
    else out[name] = item;
  }
  return out;
}

/**
 * A filter document with its field paths escaped, and values compared to
 * whole objects encoded like records. Operators (`$and`, `$in`, …) and
 * anything not a plain object or array (a RegExp, a function) are kept.
 */
export function encodeFilter(filter: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key.startsWith('$')) out[key] = Array.isArray(value) ? value.map((f) => (isPlainObject(f) ? encodeFilter(f) : f)) : value;
    else out[encodePath(key)] = encodeCondition(value);
  }
  return out;
}

function encodeCondition(condition: unknown): unknown {
  if (!isPlainObject(condition) || !Object.keys(condition).every((k) => k.startsWith('$'))) return encodeValue(condition);
  const out: Record<string, unknown> = {};
  for (const [operator, operand] of Object.entries(condition)) {
    out[operator] = operator === '$elemMatch' && isPlainObject(operand) ? encodeFilter(operand) : Array.isArray(operand) ? operand.map((v) => encodeValue(v)) : encodeValue(operand);
  }
  return out;
}

/** An update document ($set, $unset, $inc): paths escaped, $set values encoded. */
export function encodeUpdate(update: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [operator, fields] of Object.entries(update)) {
    if (!isPlainObject(fields)) {
      out[operator] = fields;
      continue;
    }
    const encoded: Record<string, unknown> = {};
    for (const [path, value] of Object.entries(fields)) encoded[encodePath(path)] = operator === '$set' ? encodeValue(value) : value;
    out[operator] = encoded;
  }
  return out;
}

/** A sort document: field paths escaped. */
export function encodeSort<T>(sort: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [path, direction] of Object.entries(sort)) out[encodePath(path)] = direction;
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
