import type { JsonValue } from '../../platform/outbound/types.ts';
import type { MappingLimits } from './limits.ts';
import { limitsOf, startOfToken, type GuardedExpression } from './compile.ts';
import { evaluateFastResumably, FellBack, fastPathOf } from './fast/index.ts';
import { GUARD_BINDING, newGuardState } from './guard.ts';
import { locate, MappingError, type MappingFailure } from './mapping-error.ts';
import { isSizeRefusal } from './size.ts';
import { stoppedBy, type MappingStop } from './slice.ts';
import { toJson } from './to-json.ts';

export { toJson } from './to-json.ts';

/** How evaluateGuarded answers (see there). */
export interface EvaluateOptions {
  mayShareInput?: boolean;
}

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
 *
 * An expression in the common subset of JSONata is evaluated by the fast
 * path (fast/index.ts: synchronously, or across turns of the event loop when
 * it takes longer than a slice); jsonata evaluates the rest, and whatever
 * the fast path hands back. MAPPING_TIMEOUT_MS counts the evaluation's own
 * time on both, the fast path's and jsonata's added up, never the turns it
 * lets other requests take.
 *
 * `stop` (the run's caller going away) is looked at each time the
 * evaluation has let the event loop turn: once it has fired, the evaluation
 * rejects with its reason (not a MappingError) instead of computing on for
 * nobody.
 *
 * `options.mayShareInput`: the caller never changes the answer, so it need
 * not be a copy: the fast path answers plain JSON as it is (a part of
 * `input` the expression selected, objects it built: to-json.ts,
 * sharedJson); jsonata's answers are still copied. Without it, the answer
 * shares nothing with `input`.
 */
export async function evaluateGuarded(
  compiled: GuardedExpression,
  input: unknown,
  bindings: Record<string, unknown> = {},
  stop?: MappingStop,
  options: EvaluateOptions = {},
): Promise<JsonValue | undefined> {
  const limits = limitsOf(compiled.expression);
  if (!limits) throw new Error(`the expression of ${compiled.at.file}:${compiled.at.line} was compiled without guardrails; compile it with guardedJsonata()`);
  const fast = fastPathOf(compiled.expression);
  let spentMs = 0;
  if (fast) {
    try {
      const result = await evaluateFastResumably(fast, input, bindings, stop, options.mayShareInput === true);
      if (!(result instanceof FellBack)) return result;
      spentMs = result.spentMs;
    } catch (error) {
      if (stop?.aborted) throw stoppedBy(stop);
      throw mappingError(error, compiled, limits, undefined);
    }
  }
  const state = newGuardState(spentMs, stop);
  try {
    const result: unknown = await compiled.expression.evaluate(input, { ...bindings, [GUARD_BINDING]: state });
    return toJson(result, limits.maxSequence, limits.maxResultBytes);
  } catch (error) {
    if (stop?.aborted) throw stoppedBy(stop);
    throw mappingError(error, compiled, limits, state.position);
  }
}

interface JsonataFailure {
  code?: string;
  message?: string;
  position?: number;
  token?: unknown;
  value?: unknown;
}

/** `position`: where the evaluation was when it failed, for an error that carries none (a timeout, a stack overflow). */
function mappingError(error: unknown, compiled: GuardedExpression, limits: MappingLimits, position: number | undefined): MappingError {
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
    what = `the mapping was stopped at evaluation depth ${limit} (MAPPING_MAX_DEPTH): a recursion without a base case (make it tail-recursive), or the app answered data nested deeper than that`;
  } else if (e.code === 'D2015' || e.code === 'D2014') {
    [reason, limit, setting] = ['sequence', e.code === 'D2014' ? 10_000_000 : limits.maxSequence, e.code === 'D2014' ? undefined : 'MAPPING_MAX_SEQUENCE'];
    what = `the mapping built a sequence of more than ${limit} items${setting ? ` (${setting})` : ''}`;
  } else if (isSizeRefusal(error)) {
    reason = 'size';
    limit = error.limit;
    if (error.what === 'string') {
      setting = 'MAPPING_MAX_STRING';
      what = `the mapping built a string of more than ${limit} characters (MAPPING_MAX_STRING)`;
    } else if (error.what === 'built') {
      setting = 'MAPPING_MAX_RESULT_BYTES';
      what = `the mapping built more than ${limit} characters of strings in all (MAPPING_MAX_RESULT_BYTES)`;
    } else {
      setting = 'MAPPING_MAX_RESULT_BYTES';
      what = `the mapping built or returned a value of more than ${limit} characters of JSON (MAPPING_MAX_RESULT_BYTES)`;
    }
  } else if (error instanceof RangeError && /invalid string length/i.test(error.message)) {
    // A string past what V8 can hold (~512 MB), built by a function the guard cannot see inside ($replace, $join).
    [reason, limit, setting] = ['size', limits.maxString, 'MAPPING_MAX_STRING'];
    what = `the mapping built a string of more than ${limit} characters (MAPPING_MAX_STRING)`;
  } else if (e.code === 'REGEX') {
    reason = 'regex';
    what = e.message ?? 'the regular expression cannot run on the linear-time engine';
  } else if (e.code === 'D3137' || e.code === 'D3141') {
    reason = 'error';
    what = `${e.message ?? 'the mapping raised an error'} (${e.code})`;
  }
  const start = startOfToken(compiled.source, e.position ?? position, e.position !== undefined ? e.token : undefined);
  const at = locate(compiled.source, start, compiled.at);
  const details = { ...at, reason, ...(e.code ? { code: e.code } : {}), ...(limit !== undefined ? { limit } : {}), ...(setting ? { setting } : {}) };
  return new MappingError(details, what);
}
