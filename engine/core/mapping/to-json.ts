import type { JsonValue } from '../../platform/outbound/types.ts';
import { isSizeRefusal, jsonLongerThan, refuseSize } from './size.ts';

/**
 * What a result is first copied within, without measuring it: most results
 * (a page of rows) are far smaller. Copying spends at least one character
 * of budget on every member it visits, so the attempt costs at most this
 * much work whatever the value; a result it cannot copy within it is
 * measured and copied as before.
 */
export const QUICK_COPY_BYTES = 65_536;

/**
 * Plain JSON from what jsonata returns: no sequence flags, no functions, no
 * undefined members. An array longer than `maxSequence` anywhere in it is
 * refused like a sequence jsonata built too long (D2015), and a result
 * whose JSON would be longer than `maxBytes` characters (counted as
 * size.ts's jsonLongerThan counts) is refused with reason `size`: measured
 * before it is copied (an object that refers to another many times over
 * costs its distinct parts), and counted again as it is copied. Two copies
 * are tried before measuring, each of them answering only when it succeeds:
 * within QUICK_COPY_BYTES (most results), and within `maxBytes` for a result
 * in which no part is met twice (a tree: most large ones).
 */
export function toJson(value: unknown, maxSequence = Infinity, maxBytes = Infinity): JsonValue | undefined {
  if (maxBytes > QUICK_COPY_BYTES && typeof value === 'object' && value !== null) {
    // Most results are small: copied within a small budget, not measured (measuring remembers each part's size in a
    // WeakMap: ~16 µs and GC work for a 10-row page). Any refusal here (too big for the quick budget, or an array over
    // maxSequence) leaves the answer to the measured copy below, so the errors are the same as without this attempt.
    try {
      return copy(value, maxSequence, { left: QUICK_COPY_BYTES, limit: QUICK_COPY_BYTES });
    } catch (error) {
      if (!isSizeRefusal(error) && (error as { code?: unknown })?.code !== 'D2015') throw error;
    }
  }
  if (maxBytes !== Infinity && typeof value === 'object' && value !== null) {
    // A large result (10,000 rows) is usually a tree: copied in one pass within the whole budget, each object and array
    // remembered, as long as none is met twice. A part met twice (a value that refers to another many times over: JSON
    // far larger than what it holds), or a refusal, leaves the answer to the measured copy below, as the quick copy does.
    try {
      return copy(value, maxSequence, { left: maxBytes, limit: maxBytes }, new Set());
    } catch (error) {
      if (error !== SHARED && !isSizeRefusal(error) && (error as { code?: unknown })?.code !== 'D2015') throw error;
    }
  }
  // measured first, each shared part once, so a value whose JSON is huge but which holds little is refused without being copied out
  if (maxBytes !== Infinity && typeof value === 'object' && value !== null && jsonLongerThan(value, maxBytes)) refuseSize('json', maxBytes);
  const budget = { left: maxBytes, limit: maxBytes };
  return copy(value, maxSequence, budget);
}

/**
 * toJson's answer without the copy when `value` is already what toJson would make of it: the value itself
 * when it holds nothing toJson drops or changes (no undefined, function or jsonata lambda anywhere, no
 * number that is not finite, no array flagged as one of jsonata's sequences, only plain objects) and its
 * JSON, counted as toJson counts it, is within `maxBytes`; toJson's copy (and its refusals) otherwise. The
 * answer may therefore share objects and arrays with the evaluation's input (a mapping that selects part
 * of the body): for a caller that never changes what it is given, as a run's response mapping (an envelope
 * is built from it, never written into) and a mapping worker (it writes the result out as JSON). A run of the bench's action allocates ~2.5 KB less at 10 records
 * and ~21 KB less at 100, whose walk takes ~6 µs where the copy took ~18 (docs/benchmarks.md, "Fixed").
 */
export function sharedJson(value: unknown, maxSequence = Infinity, maxBytes = Infinity): JsonValue | undefined {
  if (value === undefined) return undefined;
  return isJsonAlready(value, maxSequence, { left: maxBytes }) ? (value as JsonValue) : toJson(value, maxSequence, maxBytes);
}

/** The flags jsonata (and the fast path, fast/values.ts) puts on an array it built: such an array is copied. */
interface JsonataArrayFlags {
  sequence?: unknown;
  keepSingleton?: unknown;
  outerWrapper?: unknown;
  cons?: unknown;
  tupleStream?: unknown;
}

/**
 * Whether copy() would answer a value deep-equal to `value` within `budget`, counting as copy() counts
 * (every member it visits, a part met twice counted twice): nothing allocated, and stopped as soon as the
 * budget is spent, so its work is bounded by the budget as the copy's is.
 */
function isJsonAlready(value: unknown, maxSequence: number, budget: { left: number }): boolean {
  switch (typeof value) {
    case 'string':
      return (budget.left -= value.length + 2) >= 0;
    case 'boolean':
      return (budget.left -= 4) >= 0;
    case 'number':
      return Number.isFinite(value) && (budget.left -= 1) >= 0;
    case 'object':
      break;
    default:
      return false; // undefined, a function: dropped by the copy
  }
  if (value === null) return (budget.left -= 4) >= 0;
  if (Array.isArray(value)) {
    const flags = value as JsonataArrayFlags;
    if (flags.sequence !== undefined || flags.keepSingleton !== undefined || flags.outerWrapper !== undefined || flags.cons !== undefined || flags.tupleStream !== undefined) return false;
    if (value.length > maxSequence || (budget.left -= value.length + 1) < 0) return false;
    for (let i = 0; i < value.length; i++) if (!isJsonAlready(value[i], maxSequence, budget)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  budget.left -= 1;
  // Own enumerable keys, as the copy's Object.keys (an enumerable key Object.prototype was given would be visited
  // too: only more budget spent, or a copy, never a different answer).
  for (const key in value) {
    // jsonata's functions are objects with these markers (the copy drops them); an own `__proto__` member
    // (JSON.parse makes one; rare) is left to the copy, which defines it as a member.
    if (key === '_jsonata_lambda' || key === '_jsonata_function' || key === '__proto__') return false;
    if ((budget.left -= key.length + 4) < 0) return false;
    if (!isJsonAlready((value as Record<string, unknown>)[key], maxSequence, budget)) return false;
  }
  return budget.left >= 0;
}

/** What the one-pass copy throws when it meets an object or array a second time. */
const SHARED: unique symbol = Symbol('a part met twice');

interface Budget {
  left: number;
  readonly limit: number;
}

function spend(budget: Budget, amount: number): void {
  if ((budget.left -= amount) < 0) refuseSize('json', budget.limit);
}

/** A copy within `budget`; with `seen`, each object and array may be met once (SHARED is thrown at the second). */
function copy(value: unknown, maxSequence: number, budget: Budget, seen?: Set<object>): JsonValue | undefined {
  if (value === undefined || typeof value === 'function') return undefined;
  if (typeof value === 'string') {
    spend(budget, value.length + 2);
    return value;
  }
  if (value === null || typeof value === 'boolean') {
    spend(budget, 4);
    return value;
  }
  if (typeof value === 'number') {
    spend(budget, 1);
    return Number.isFinite(value) ? value : null;
  }
  if (seen !== undefined && typeof value === 'object' && value !== null) {
    if (seen.has(value)) throw SHARED;
    seen.add(value);
  }
  if (Array.isArray(value)) {
    if (value.length > maxSequence) throw { code: 'D2015', value: maxSequence };
    spend(budget, value.length + 1);
    const items: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const json = copy(value[i], maxSequence, budget, seen);
      if (json !== undefined) items.push(json);
    }
    return items;
  }
  if (typeof value === 'object') {
    if ('_jsonata_lambda' in value || '_jsonata_function' in value) return undefined;
    const result: { [key: string]: JsonValue } = {};
    const keys = Object.keys(value);
    spend(budget, keys.length + 1);
    for (let i = 0; i < keys.length; i++) {
      spend(budget, keys[i]!.length + 3);
      const json = copy((value as Record<string, unknown>)[keys[i]!], maxSequence, budget, seen);
      if (json === undefined) continue;
      // An app's `__proto__` member (JSON.parse makes it an own member): assigned, it would become the copy's
      // prototype (its members read through every lookup) and drop out of the JSON; defined, it stays a member.
      if (keys[i] === '__proto__') Object.defineProperty(result, '__proto__', { value: json, enumerable: true, writable: true, configurable: true });
      else result[keys[i]!] = json;
    }
    return result;
  }
  return undefined;
}
