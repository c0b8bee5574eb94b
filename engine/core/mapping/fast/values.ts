/**
 * jsonata's value model, ported for the synchronous fast path: results are
 * JSON values, plus sequences (arrays flagged `sequence`, which collapse to
 * their single item or to nothing when a step ends), array constructors'
 * results (flagged `cons`, which a path does not flatten), `keepSingleton`
 * (the `[]` of `body.items[]`) and `outerWrapper` (an input array, wrapped so
 * a path treats it as one value). The helpers here are jsonata 2.2.2's own
 * (utils.js and functions.js), with the same checks in the same order.
 *
 * Wherever jsonata would throw, the fast path throws BAIL instead: the caller
 * then runs the expression through jsonata, which raises the real error with
 * its code and position (evaluation is pure, so running it again is safe).
 */

/** Per-evaluation state: the caller's bindings, the root (`$$`) and the guardrails. */
export interface Run {
  readonly bindings: Readonly<Record<string, unknown>>;
  readonly root: unknown;
  readonly maxSequence: number;
  /** MAPPING_MAX_STRING: a longer string hands the evaluation to jsonata, which refuses it with reason size. */
  readonly maxString: number;
  /**
   * performance.now() after which a synchronous evaluation stops (throws
   * OUT_OF_SLICE) so that the evaluation can go on resumably; Infinity while
   * it goes on resumably (the synchronous parts of it then run to their end).
   */
  deadline: number;
  steps: number;
  /** performance.now() after which a resumable evaluation yields (the end of its slice). */
  sliceEnd: number;
  /** Steps of the resumable evaluators, counted apart (the synchronous ones between them would skew a shared count). */
  resumeSteps: number;
  /** Position (jsonata's offset) of the step a resumable evaluation last yielded at: where a timeout is reported. */
  position: number | undefined;
}

export interface Sequence extends Array<unknown> {
  sequence: true;
  keepSingleton?: boolean;
  outerWrapper?: boolean;
  cons?: boolean;
}

/** What the fast path throws to hand the expression back to jsonata. */
export const BAIL: unique symbol = Symbol('fast path: let jsonata evaluate this');

export function bail(): never {
  throw BAIL;
}

/** What a synchronous evaluation throws when its slice is over: the evaluation goes on resumably (not a failure). */
export const OUT_OF_SLICE: unique symbol = Symbol('fast path: the slice is over');

export function outOfSlice(): never {
  throw OUT_OF_SLICE;
}

/**
 * createSequence() of jsonata: an empty sequence, or one holding `value` (even undefined) when given.
 * `arguments.length`, not a rest parameter: a rest parameter made an array on every call, and this runs
 * for each field a mapping reads of each record.
 */
export function createSequence(value?: unknown): Sequence {
  const sequence = (arguments.length === 0 ? [] : [value]) as unknown as Sequence;
  sequence.sequence = true;
  return sequence;
}

/** A sequence's push, which jsonata caps at the `sequence` guardrail (D2015). */
export function pushItem(sequence: unknown[], value: unknown, run: Run): void {
  if (sequence.length + 1 > run.maxSequence) bail();
  sequence.push(value);
}

export function isSequence(value: unknown): value is Sequence {
  return Array.isArray(value) && (value as Partial<Sequence>).sequence === true;
}

/** utils.isFunction: a jsonata lambda or native function, or a JavaScript function. */
export function isFunction(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null) return false;
  const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flags._jsonata_function === true || flags._jsonata_lambda === true;
}

/** utils.isNumeric: a number that is not NaN; an infinite one is an error (D1001). */
export function isNumeric(value: unknown): value is number {
  if (typeof value !== 'number') return false;
  if (Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) bail();
  return true;
}

export function isArrayOfNumbers(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  let all = true;
  for (const item of value) if (!isNumeric(item)) all = false; // every item is checked, as jsonata's filter() does
  return all;
}

/** utils.isDeepEqual. */
export function isDeepEqual(lhs: unknown, rhs: unknown): boolean {
  if (lhs === rhs) return true;
  if (typeof lhs !== 'object' || typeof rhs !== 'object' || lhs === null || rhs === null) return false;
  if (Array.isArray(lhs) && Array.isArray(rhs)) {
    if (lhs.length !== rhs.length) return false;
    for (let i = 0; i < lhs.length; i++) if (!isDeepEqual(lhs[i], rhs[i])) return false;
    return true;
  }
  const lkeys = Object.getOwnPropertyNames(lhs).sort();
  const rkeys = Object.getOwnPropertyNames(rhs).sort();
  if (lkeys.length !== rkeys.length) return false;
  for (let i = 0; i < lkeys.length; i++) if (lkeys[i] !== rkeys[i]) return false;
  for (const key of lkeys) if (!isDeepEqual((lhs as Record<string, unknown>)[key], (rhs as Record<string, unknown>)[key])) return false;
  return true;
}

/** fn.boolean: jsonata's effective boolean value; undefined for undefined. */
export function toBoolean(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 1) return toBoolean(value[0]);
    if (value.length > 1) return value.filter((item) => toBoolean(item)).length > 0;
    return false;
  }
  if (typeof value === 'string') return value.length > 0;
  if (isNumeric(value)) return value !== 0;
  if (value !== null && typeof value === 'object' && !isFunction(value)) return Object.keys(value).length > 0;
  return value === true;
}

/** fn.string without prettify: a string as it is, anything else as jsonata's JSON (numbers to 15 significant digits). */
export function toJsonataString(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (isFunction(value)) return '';
  if (typeof value === 'number' && !Number.isFinite(value)) bail(); // D3001
  const arg = Array.isArray(value) && (value as Partial<Sequence>).outerWrapper ? value[0] : value;
  return JSON.stringify(arg, (_key, item: unknown) => {
    if (item !== undefined && item !== null && isNumeric(item)) return !Number.isInteger(item) ? Number(item.toPrecision(15)) : item;
    return item && isFunction(item) ? '' : item;
  }) as string | undefined;
}

/** fn.lookup: the field `key` of an object, or of every item of an array (nested arrays flattened one level). */
export function lookup(input: unknown, key: string, run: Run): unknown {
  if (Array.isArray(input)) {
    const result = createSequence();
    for (const item of input) {
      const found = lookup(item, key, run);
      if (found === undefined) continue;
      if (Array.isArray(found)) for (const value of found) pushItem(result, value, run);
      else pushItem(result, found, run);
    }
    return result;
  }
  if (input !== null && typeof input === 'object' && Object.prototype.hasOwnProperty.call(input, key) && !isFunction(input)) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'function') bail(); // a function from the bindings: beyond the subset
    return value;
  }
  return undefined;
}

/** fn.append: one array of both (undefined disregarded), capped at the sequence guardrail. */
export function append(first: unknown, second: unknown, run: Run): unknown {
  if (first === undefined) return second;
  if (second === undefined) return first;
  const left = Array.isArray(first) ? first : createSequence(first);
  const right = Array.isArray(second) ? second : [second];
  if (left.length + right.length > run.maxSequence) bail();
  return left.concat(right);
}
