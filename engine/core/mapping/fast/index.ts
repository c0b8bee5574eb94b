import { performance } from 'node:perf_hooks';
import type jsonata from 'jsonata';
import type { JsonValue } from '../../../platform/outbound/types.ts';
import { limitsOf } from '../compile.ts';
import { currentSliceMs } from '../slice.ts';
import { toJson } from '../to-json.ts';
import { compileAst, type AstNode, type Evaluator } from './compile.ts';
import { createSequence, isSequence, type Run } from './values.ts';

/**
 * The synchronous fast path of evaluateGuarded. jsonata evaluates every step
 * of an expression as an async call, and the guard adds an entry hook to
 * each: a response mapping over 10 records costs hundreds of microseconds,
 * most of it promises. An expression entirely inside the common subset
 * (subset.md) is compiled once more, from jsonata's own AST, into
 * synchronous closures that give the same result.
 *
 * Anything else is jsonata's: an expression outside the subset never takes
 * the fast path, and an evaluation that would fail (a type error, a
 * sequence over the limit), meets something unexpected, or runs past the
 * guard's slice (slice.ts) is abandoned and run again by jsonata under its
 * guardrails, which reports the real error with its position, or yields
 * to the event loop as it goes. So does a string over MAPPING_MAX_STRING
 * (checked after `&` and every built-in, and before $join and $string
 * build one) and a result over MAPPING_MAX_RESULT_BYTES.
 */
export interface FastPath {
  readonly evaluate: Evaluator;
  readonly maxSequence: number;
  readonly maxString: number;
  readonly maxResultBytes: number;
  /** The whole timeout: the fast path runs at most the guard's slice (slice.ts), or this if it is shorter, before jsonata takes over. */
  readonly timeoutMs: number;
}

/** What evaluateFast answers when jsonata must evaluate the expression after all. */
export const FELL_BACK: unique symbol = Symbol('fell back to jsonata');

const FAST_PATHS = new WeakMap<jsonata.Expression, FastPath | null>();

/** The fast path of an expression made by guardedJsonata, decided once per expression; null when it is outside the subset. */
export function fastPathOf(expression: jsonata.Expression): FastPath | null {
  let fast = FAST_PATHS.get(expression);
  if (fast === undefined) {
    fast = compileFastPath(expression);
    FAST_PATHS.set(expression, fast);
  }
  return fast;
}

function compileFastPath(expression: jsonata.Expression): FastPath | null {
  const limits = limitsOf(expression);
  if (!limits) return null;
  try {
    const evaluate = compileAst(expression.ast() as unknown as AstNode, limits.maxDepth);
    return { evaluate, maxSequence: limits.maxSequence, maxString: limits.maxString, maxResultBytes: limits.maxResultBytes, timeoutMs: limits.timeoutMs };
  } catch {
    return null; // NotInSubset, or anything surprising (an AST too deep for the compiler's own stack): jsonata's
  }
}

/** Plain JSON as evaluateGuarded returns it, or FELL_BACK. */
export function evaluateFast(fast: FastPath, input: unknown, bindings: Record<string, unknown>): JsonValue | undefined | typeof FELL_BACK {
  const run: Run = { bindings, root: input, maxSequence: fast.maxSequence, maxString: fast.maxString, deadline: performance.now() + Math.min(currentSliceMs(), fast.timeoutMs), steps: 0 };
  let context = input;
  if (Array.isArray(input) && !isSequence(input)) {
    // jsonata wraps an input array so that a path takes it as one value
    const wrapped = createSequence(input);
    wrapped.outerWrapper = true;
    context = wrapped;
  }
  try {
    return toJson(fast.evaluate(context, run), fast.maxSequence, fast.maxResultBytes);
  } catch {
    return FELL_BACK;
  }
}
