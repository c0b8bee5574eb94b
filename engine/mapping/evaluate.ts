import type { JsonValue } from '../runtime/http/types.ts';
import type { MappingLimits } from './limits.ts';
import { limitsOf, startOfToken, type GuardedExpression } from './compile.ts';
import { GUARD_BINDING, newGuardState, type GuardState } from './guard.ts';
import { locate, MappingError, type MappingFailure } from './mapping-error.ts';

/**
 * Evaluates a compiled expression against `input`, with `bindings` as
 * variables ({ action: ... } is `$action`), under its guardrails. Resolves
 * with plain JSON (sequences become arrays; functions and undefined values
 * are dropped; undefined when the expression yields nothing). Rejects with
 * a MappingError naming the definition's file:line:column and the reason;
 * never hangs on a runaway expression and never crashes the process.
 *
 * The expression must have been made by compileExpression or guardedJsonata:
 * one compiled without guardrails is refused (a programming error, thrown
 * as a plain Error), so the guardrails cannot be forgotten.
 */
export async function evaluateGuarded(compiled: GuardedExpression, input: unknown, bindings: Record<string, unknown> = {}): Promise<JsonValue | undefined> {
  const limits = limitsOf(compiled.expression);
  if (!limits) throw new Error(`the expression of ${compiled.at.file}:${compiled.at.line} was compiled without guardrails; compile it with guardedJsonata()`);
  const state = newGuardState();
  try {
    const result: unknown = await compiled.expression.evaluate(input, { ...bindings, [GUARD_BINDING]: state });
    return toJson(result, limits.maxSequence);
  } catch (error) {
    throw mappingError(error, compiled, limits, state);
  }
}

/**
 * Plain JSON from what jsonata returns: no sequence flags, no functions, no
 * undefined members. An array longer than `maxSequence` anywhere in it is
 * refused like a sequence jsonata built too long (D2015).
 */
export function toJson(value: unknown, maxSequence = Infinity): JsonValue | undefined {
  if (value === undefined || typeof value === 'function') return undefined;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) {
    if (value.length > maxSequence) throw { code: 'D2015', value: maxSequence };
    const items: JsonValue[] = [];
    for (const item of value) {
      const json = toJson(item, maxSequence);
      if (json !== undefined) items.push(json);
    }
    return items;
  }
  if (typeof value === 'object') {
    if ('_jsonata_lambda' in value || '_jsonata_function' in value) return undefined;
    const result: { [key: string]: JsonValue } = {};
    for (const [key, member] of Object.entries(value)) {
      const json = toJson(member, maxSequence);
      if (json !== undefined) result[key] = json;
    }
    return result;
  }
  return undefined;
}

interface JsonataFailure {
  code?: string;
  message?: string;
  position?: number;
  token?: unknown;
  value?: unknown;
}

function mappingError(error: unknown, compiled: GuardedExpression, limits: MappingLimits, state: GuardState): MappingError {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as JsonataFailure;
  let reason: MappingFailure = 'evaluation';
  let what = `${e.message ?? 'evaluation failed'}${e.code ? ` (${e.code})` : ''}`;
  let limit: number | undefined;
  let setting: string | undefined;
  if (e.code === 'D1012') {
    [reason, limit, setting] = ['timeout', limits.timeoutMs, 'MAPPING_TIMEOUT_MS'];
    what = `the mapping was stopped after ${limit} ms (MAPPING_TIMEOUT_MS); check for an infinite loop`;
  } else if (e.code === 'D1011' || (error instanceof RangeError && /call stack/i.test(error.message))) {
    [reason, limit, setting] = ['stack', limits.maxDepth, 'MAPPING_MAX_DEPTH'];
    what = `the mapping was stopped at evaluation depth ${limit} (MAPPING_MAX_DEPTH); check for recursion without a base case, or make it tail-recursive`;
  } else if (e.code === 'D2015' || e.code === 'D2014') {
    [reason, limit, setting] = ['sequence', e.code === 'D2014' ? 10_000_000 : limits.maxSequence, e.code === 'D2014' ? undefined : 'MAPPING_MAX_SEQUENCE'];
    what = `the mapping built a sequence of more than ${limit} items${setting ? ` (${setting})` : ''}`;
  } else if (e.code === 'D3137' || e.code === 'D3141') {
    reason = 'error';
    what = `${e.message ?? 'the mapping raised an error'} (${e.code})`;
  }
  const position = startOfToken(compiled.source, e.position ?? state.position, e.position !== undefined ? e.token : undefined);
  const at = locate(compiled.source, position, compiled.at);
  const details = { ...at, reason, ...(e.code ? { code: e.code } : {}), ...(limit !== undefined ? { limit } : {}), ...(setting ? { setting } : {}) };
  return new MappingError(details, what);
}
