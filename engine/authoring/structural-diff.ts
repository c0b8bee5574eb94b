import { isJsonObject } from '../platform/json-object.ts';

/** One place where what a case expects and what the engine did differ. */
export interface Difference {
  /** Where, as a path: `request.query.state`, `expect.data[0].title`. */
  path: string;
  expected: unknown;
  actual: unknown;
}

/** A value shown as words rather than as JSON: "an envelope", "error NOT_FOUND: ...". */
export class Described {
  constructor(readonly text: string) {}
}

export const described = (text: string) => new Described(text);

/** Marks a value that is not there (a missing key or array item), as opposed to null. */
export const MISSING = Symbol('missing');

/**
 * The differences between two JSON values, by path. `whole`: every key and
 * item of both sides counts; `subset`: only the keys `expected` lists (at
 * the top level; their values are compared whole).
 */
export function differences(path: string, expected: unknown, actual: unknown, mode: 'whole' | 'subset' = 'whole'): Difference[] {
  if (isJsonObject(expected) && isJsonObject(actual)) {
    const keys = mode === 'subset' ? Object.keys(expected) : [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((key) => differences(join(path, key), key in expected ? expected[key] : MISSING, key in actual ? actual[key] : MISSING));
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const length = Math.max(expected.length, actual.length);
    const result: Difference[] = [];
    for (let i = 0; i < length; i++) {
      result.push(...differences(`${path}[${i}]`, i < expected.length ? expected[i] : MISSING, i < actual.length ? actual[i] : MISSING));
    }
    return result;
  }
  return sameScalar(expected, actual) ? [] : [{ path, expected, actual }];
}

function sameScalar(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
}

function join(path: string, key: string): string {
  const part = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return path ? (part.startsWith('"') ? `${path}[${part}]` : `${path}.${part}`) : part;
}

/**
 * `path: expected X, got Y`, values as compact JSON, long ones shortened. A
 * side that is not there says so by what the path names: `expected no such
 * field, got "x"` for a key the case does not list, `got no such item` for an
 * array item the run did not return.
 */
export function formatDifference(difference: Difference): string {
  const absent = /\[\d+\]$/.test(difference.path) ? 'no such item' : 'no such field';
  const side = (value: unknown) => (value === MISSING ? absent : shown(value));
  return `${difference.path}: expected ${side(difference.expected)}, got ${side(difference.actual)}`;
}

const MAX_SHOWN = 160;

export function shown(value: unknown): string {
  if (value === MISSING || value === undefined) return '(nothing)';
  if (value instanceof Described) return value.text;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}
