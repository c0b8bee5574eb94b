import { performance } from 'node:perf_hooks';
import type jsonata from 'jsonata';
import type { JsonValue } from '../../../platform/outbound/types.ts';
import { limitsOf } from '../compile.ts';
import { cpuNow } from '../cpu-clock.ts';
import { ownTurn } from '../../../platform/turns/index.ts';
import { currentSliceMs, stoppedBy, type MappingStop } from '../slice.ts';
import { sharedJson, toJson } from '../to-json.ts';
import { compileAst, type AstNode, type Compiled } from './compile.ts';
import { createSequence, isSequence, OUT_OF_SLICE, type Run } from './values.ts';

/**
 * The fast path of evaluateGuarded. jsonata evaluates every step of an
 * expression as an async call, and the guard adds an entry hook to each: a
 * response mapping over 10 records costs hundreds of microseconds, most of
 * it promises. An expression entirely inside the common subset (subset.md)
 * is compiled once more, from jsonata's own AST, into closures that give
 * the same result (compile.ts).
 *
 * An evaluation runs synchronously first, for at most the guard's slice
 * (slice.ts): most end within it. One that does not starts again in the
 * resumable form (node.ts), which yields to the event loop whenever its
 * slice is over and goes on at a turn of its own (platform/turns: one long
 * step per turn, so ten big mappings never run ten slices in one turn), to
 * its end: a response of any size maps in time linear in its size while
 * other requests proceed. The
 * mapping's timeout (MAPPING_TIMEOUT_MS) counts its own time, the sum of
 * its slices (the first attempt's included; each resumed slice in CPU time,
 * cpu-clock.ts), not the turns it waits; past it the evaluation stops with
 * D1012 at the step it had reached.
 *
 * Anything else is jsonata's: an expression outside the subset never takes
 * the fast path, and an evaluation that would fail (a type error, a
 * sequence over the limit) or meets something unexpected is abandoned and
 * run again by jsonata under its guardrails, which reports the real error
 * with its position; so is a string over MAPPING_MAX_STRING (checked after
 * `&` and every built-in, and before $join and $string build one) and a
 * result over MAPPING_MAX_RESULT_BYTES. jsonata's run goes on counting from
 * the time the fast path spent.
 */
export interface FastPath {
  readonly evaluate: Compiled;
  readonly maxSequence: number;
  readonly maxString: number;
  readonly maxResultBytes: number;
  /** MAPPING_TIMEOUT_MS: the time one evaluation may compute, summed over its slices. */
  readonly timeoutMs: number;
}

/** What evaluateFast answers when jsonata must evaluate the expression after all. */
export const FELL_BACK: unique symbol = Symbol('fell back to jsonata');

/** evaluateFastResumably's answer when jsonata must evaluate the expression: with the time the fast path spent, which counts against the timeout. */
export class FellBack {
  readonly spentMs: number;

  constructor(spentMs: number) {
    this.spentMs = spentMs;
  }
}

/** What the fast path throws when an evaluation computed past MAPPING_TIMEOUT_MS: shaped as jsonata's D1012, with the position of the step it had reached. */
export class FastTimeoutError extends Error {
  readonly code = 'D1012';
  readonly value: number;
  readonly position: number | undefined;

  constructor(value: number, position: number | undefined) {
    super(`the evaluation computed for more than ${value} ms`);
    this.value = value;
    this.position = position;
  }
}

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

/**
 * Plain JSON as evaluateGuarded returns it, or FELL_BACK, computed without
 * ever waiting: the synchronous form for a slice, then the resumable form
 * driven to its end in one go. An evaluation that computes past the timeout
 * falls back (jsonata reports it). `form: 'resumable'` evaluates with the
 * resumable form alone, yielding at every look at the clock: the specs hold
 * both forms to jsonata this way.
 */
export function evaluateFast(fast: FastPath, input: unknown, bindings: Record<string, unknown>, form: 'both' | 'resumable' = 'both'): JsonValue | undefined | typeof FELL_BACK {
  const started = performance.now();
  const run = newRun(fast, input, bindings, started);
  if (form === 'both') {
    try {
      return toJson(attempt(fast, run), fast.maxSequence, fast.maxResultBytes);
    } catch (error) {
      if (error !== OUT_OF_SLICE) return FELL_BACK;
    }
  }
  try {
    const steps = resumable(fast, run);
    for (;;) {
      const spentMs = performance.now() - started;
      if (spentMs > fast.timeoutMs) return FELL_BACK;
      run.sliceEnd = form === 'resumable' ? -Infinity : performance.now() + sliceLength(fast, spentMs);
      const next = steps.next();
      if (next.done) return toJson(next.value, fast.maxSequence, fast.maxResultBytes);
    }
  } catch {
    return FELL_BACK;
  }
}

/**
 * Plain JSON as evaluateGuarded returns it, or FellBack; yields to the event
 * loop between slices. Throws FastTimeoutError past MAPPING_TIMEOUT_MS of
 * its own time, and the stop's reason when `stop` has fired by the end of a
 * turn it let the event loop take. With `mayShareInput`, the answer is
 * to-json.ts's sharedJson: not copied when it is plain JSON already.
 */
export async function evaluateFastResumably(
  fast: FastPath,
  input: unknown,
  bindings: Record<string, unknown>,
  stop?: MappingStop,
  mayShareInput = false,
): Promise<JsonValue | undefined | FellBack> {
  const json = mayShareInput ? sharedJson : toJson;
  let sliceStart = performance.now();
  const run = newRun(fast, input, bindings, sliceStart);
  let spentMs = 0;
  try {
    return json(attempt(fast, run), fast.maxSequence, fast.maxResultBytes);
  } catch (error) {
    // Ended by its deadline (or sooner): a slice at most, however long the machine held it (not clocked in CPU time,
    // which would cost every evaluation two getrusage(2) calls).
    spentMs = Math.min(performance.now() - sliceStart, currentSliceMs());
    if (error !== OUT_OF_SLICE) return new FellBack(spentMs);
  }
  const steps = resumable(fast, run);
  let sliceCpu = 0;
  for (;;) {
    await ownTurn();
    if (stop?.aborted) throw stoppedBy(stop);
    try {
      sliceStart = performance.now();
      sliceCpu = cpuNow();
      run.sliceEnd = sliceStart + sliceLength(fast, spentMs);
      const next = steps.next();
      spentMs += cpuNow() - sliceCpu;
      if (next.done) return json(next.value, fast.maxSequence, fast.maxResultBytes);
      if (spentMs > fast.timeoutMs) throw new FastTimeoutError(fast.timeoutMs, run.position);
    } catch (error) {
      if (error instanceof FastTimeoutError) throw error;
      // BAIL, toJson's refusals, or anything unexpected: jsonata runs it and reports what it finds
      return new FellBack(spentMs + (cpuNow() - sliceCpu));
    }
  }
}

/** The next slice: the guard's, cut short where the timeout would pass (so a slice of Infinity, a test seam, still times out). */
function sliceLength(fast: FastPath, spentMs: number): number {
  return Math.min(currentSliceMs(), Math.max(0, fast.timeoutMs - spentMs));
}

function newRun(fast: FastPath, input: unknown, bindings: Record<string, unknown>, now: number): Run {
  return {
    bindings,
    root: input,
    maxSequence: fast.maxSequence,
    maxString: fast.maxString,
    deadline: now + Math.min(currentSliceMs(), fast.timeoutMs),
    steps: 0,
    sliceEnd: Infinity,
    resumeSteps: 0,
    position: undefined,
  };
}

/** The input as the expression sees it: jsonata wraps an input array so that a path takes it as one value. */
function context(input: unknown): unknown {
  if (!Array.isArray(input) || isSequence(input)) return input;
  const wrapped = createSequence(input);
  wrapped.outerWrapper = true;
  return wrapped;
}

/** The synchronous form, within the run's deadline (throws OUT_OF_SLICE past it). */
function attempt(fast: FastPath, run: Run): unknown {
  return fast.evaluate.sync(context(run.root), run);
}

/** The resumable form from the start (the synchronous parts under it then run to their end). */
function resumable(fast: FastPath, run: Run): Generator<undefined, unknown, undefined> {
  run.deadline = Infinity;
  run.steps = 0;
  const input = context(run.root);
  if (fast.evaluate.resume) return fast.evaluate.resume(input, run);
  const sync = fast.evaluate.sync;
  return (function* () {
    return sync(input, run);
  })();
}
