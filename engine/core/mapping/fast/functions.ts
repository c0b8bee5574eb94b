import { parseSignature, type Validate } from './signature.ts';
import { bail, isFunction, toBoolean, toJsonataString } from './values.ts';

/**
 * The built-in functions the fast path evaluates itself: pure functions of
 * their arguments, ported from jsonata 2.2.2 (functions.js, datetime.js)
 * with jsonata's signatures. A call to any other function, or to one of
 * these that a binding shadows, is left to jsonata.
 *
 * $fromMillis is here only without a picture or timezone, and only for
 * years 0 to 9999, where its ISO 8601 picture and Date.toISOString() agree.
 */
export interface BuiltIn {
  readonly validate: Validate;
  readonly apply: (...args: unknown[]) => unknown;
}

const builtIn = (signature: string, apply: (...args: never[]) => unknown): BuiltIn => ({ validate: parseSignature(signature), apply: apply as BuiltIn['apply'] });

const str =
  (f: (value: string) => unknown) =>
  (value: string | undefined): unknown =>
    value === undefined ? undefined : f(value);

export const BUILT_INS: ReadonlyMap<string, BuiltIn> = new Map([
  ['exists', builtIn('<x:b>', (value: unknown) => value !== undefined)],
  ['not', builtIn('<x-:b>', (value: unknown) => (value === undefined ? undefined : !toBoolean(value)))],
  ['boolean', builtIn('<x-:b>', (value: unknown) => toBoolean(value))],
  ['count', builtIn('<a:n>', (values: unknown[] | undefined) => (values === undefined ? 0 : values.length))],
  ['string', builtIn('<x-b?:s>', (value: unknown, prettify: boolean | undefined) => (prettify ? bail() : toJsonataString(value)))],
  ['lowercase', builtIn('<s-:s>', str((value) => value.toLowerCase()))],
  ['uppercase', builtIn('<s-:s>', str((value) => value.toUpperCase()))],
  ['length', builtIn('<s-:n>', str((value) => [...value].length))],
  ['trim', builtIn('<s-:s>', str(trim))],
  ['join', builtIn('<a<s>s?:s>', (values: string[] | undefined, separator: string | undefined) => values?.join(separator ?? ''))],
  ['merge', builtIn('<a<o>:o>', merge)],
  ['number', builtIn('<(nsb)-:n>', toNumber)],
  ['fromMillis', builtIn('<n-s?s?:s>', fromMillis)],
]);

/** fn.trim: whitespace runs become one space, then one leading and one trailing space go. */
function trim(value: string): string {
  let result = value.replace(/[ \t\n\r]+/gm, ' ');
  if (result.charAt(0) === ' ') result = result.substring(1);
  if (result.charAt(result.length - 1) === ' ') result = result.substring(0, result.length - 1);
  return result;
}

/** fn.merge, into a plain object (jsonata's is Object.create(null): the same but for a `__proto__` key, which bails). */
function merge(objects: object[] | undefined): unknown {
  if (objects === undefined) return undefined;
  const result: Record<string, unknown> = {};
  for (const object of objects) {
    for (const key of Object.keys(object)) {
      if (key === '__proto__') bail();
      result[key] = (object as Record<string, unknown>)[key];
    }
  }
  return result;
}

/** fn.number: numbers as they are, numeric strings (decimal, hex, octal, binary), booleans; anything else is D3030. */
function toNumber(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?$/.test(value) && !Number.isNaN(parseFloat(value)) && Number.isFinite(Number(value))) {
    return parseFloat(value);
  }
  if (typeof value === 'string' && /^(0[xX][0-9A-Fa-f]+)|(0[oO][0-7]+)|(0[bB][0-1]+)$/.test(value)) return Number(value);
  if (value === true) return 1;
  if (value === false) return 0;
  return bail();
}

function fromMillis(millis: number | undefined, picture: string | undefined, timezone: string | undefined): string | undefined {
  if (millis === undefined) return undefined;
  if (picture !== undefined || timezone !== undefined) bail();
  const date = new Date(millis);
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) bail();
  return date.toISOString();
}

/** Arguments that are functions are beyond the subset (jsonata wraps them in closures). */
export function callBuiltIn(builtIn: BuiltIn, args: unknown[], context: unknown): unknown {
  for (const arg of args) if (isFunction(arg)) bail();
  return builtIn.apply(...builtIn.validate(args, context));
}
