import { performance } from 'node:perf_hooks';
import type jsonata from 'jsonata';
import type { MappingLimits } from './limits.ts';
import { enterStep, leaveStep, newDepthState, type DepthState } from './depth.ts';
import { cpuNow } from './cpu-clock.ts';
import { ownTurn } from '../../platform/turns/index.ts';
import { currentSliceMs, stoppedBy, type MappingStop } from './slice.ts';
import { jsonLongerThan, refuseSize } from './size.ts';

/**
 * The gateway's hooks on a compiled expression, beside jsonata's own
 * guardrails (which jsonata checks on entry to every evaluation step):
 *
 * - Cooperative scheduling: jsonata's evaluation is a chain of promises, so
 *   a runaway expression would keep the event loop busy with microtasks
 *   until its timeout, stalling every other request. Every 64 steps the
 *   entry hook checks how long this evaluation has run since it last let
 *   the event loop turn; past SLICE_MS it waits for a turn of its own
 *   (platform/turns: no other long step runs in it).
 * - The timeout (MAPPING_TIMEOUT_MS, in place of jsonata's own `timeout`
 *   option, which counts the time since the evaluation started): the
 *   evaluation's own time, its slices added up in CPU time (cpu-clock.ts;
 *   and what the fast path spent before it handed over), never the turns it
 *   waits for; past it the entry hook throws jsonata's D1012. A mapping that
 *   yields a lot to a busy gateway is not stopped for it; one that computes
 *   too long still is. (Within a slice, checked every 64 steps, the slice's
 *   wall-clock time stands in for its CPU time: at most one slice.)
 * - Where it was: the position of the last step entered, so a timeout or a
 *   stack overflow (which carry no position) can still name the line.
 * - Depth: MAPPING_MAX_DEPTH counted as nesting (depth.ts), in place of
 *   jsonata's `stack` option, which adds up the members of a literal.
 *
 * - Sizes: the exit hook refuses a step that builds a string (`&`, a call)
 *   longer than MAPPING_MAX_STRING (a string of the input passes as it
 *   is, as on the fast path), or whose result is an array longer than
 *   MAPPING_MAX_SEQUENCE
 *   (jsonata's `sequence` option only sees the sequences it builds itself,
 *   not $append's or an array constructor's), and counts the characters of
 *   the strings `&` and function calls build, refusing an evaluation that
 *   builds more than MAPPING_MAX_RESULT_BYTES in all. A step can at most add
 *   its arguments up or grow them by a constant factor (the built-ins that
 *   can do more check first: builtins.ts), so no string ever gets far past
 *   the limit: recursion that doubles a string stops at the limit instead of
 *   at V8's fatal "invalid size". An object or array such a step, a
 *   constructor or a path makes is measured (size.ts: each distinct part
 *   once, remembered) and refused past MAPPING_MAX_RESULT_BYTES of JSON, so
 *   no value whose JSON doubles at each level (`{"a": $o, "b": $o}` in a
 *   recursion) reaches `=`, `**` or $string, which would walk it whole. It
 *   returns nothing to wait for.
 *
 * Per-evaluation state travels in a binding whose name no expression can
 * write (it contains a space), so one compiled expression serves concurrent
 * evaluations.
 */
export const GUARD_BINDING = 'gateway guard';
export { SLICE_MS } from './slice.ts';

export interface GuardState extends DepthState {
  steps: number;
  sliceStart: number;
  /** cpuNow() when this slice started. */
  sliceCpu: number;
  /** CPU time computed in the slices before this one (ms). */
  spentMs: number;
  /** Position (jsonata's offset, just past the token) of the last step entered. */
  position: number | undefined;
  yields: number;
  /** Characters of the strings built so far (see the exit hook). */
  built: number;
  /** Checked after each turn the evaluation lets the event loop take: fired, the evaluation rejects with its reason. */
  stop: MappingStop | undefined;
}

/** `spentMs`: time the evaluation has already computed (the fast path's, when it hands over). */
export function newGuardState(spentMs = 0, stop?: MappingStop): GuardState {
  return { steps: 0, sliceStart: performance.now(), sliceCpu: cpuNow(), spentMs, position: undefined, yields: 0, built: 0, stop, ...newDepthState() };
}

type Node = { position?: number };
type Environment = { lookup(name: string): unknown; base?: { bind(name: string, value: unknown): void } };

/** This evaluation's state: evaluateGuarded binds it; an evaluation started without it (expression.evaluate) gets its own, so the depth limit always holds. */
function stateOf(environment: Environment): GuardState | undefined {
  let state = environment.lookup(GUARD_BINDING) as GuardState | undefined;
  if (!state && environment.base) environment.base.bind(GUARD_BINDING, (state = newGuardState()));
  return state;
}

/** Steps whose string result is new: `&` (binary), and calls (function, partial application, `~>`). */
const BUILDS = new Set(['binary', 'function', 'partial', 'apply']);
/** Steps whose object or array result is new: those, object and array constructors (unary), paths (their sequences), transforms. */
const MAKES = new Set(['binary', 'function', 'partial', 'apply', 'unary', 'path', 'transform']);

export function installGuard(expression: jsonata.Expression, limits: MappingLimits): void {
  const entry = (node: Node, _input: unknown, environment: Environment): Promise<void> | undefined => {
    const state = stateOf(environment);
    if (!state) return undefined;
    return enterStep(state, node, () => {
      if (node.position !== undefined) state.position = node.position;
      if (++state.depth > limits.maxDepth) throw { code: 'D1011', value: limits.maxDepth, stack: new Error().stack };
      if ((++state.steps & 63) !== 0) return undefined;
      const slice = performance.now() - state.sliceStart;
      if (state.spentMs + slice > limits.timeoutMs) throw { code: 'D1012', value: limits.timeoutMs, stack: new Error().stack };
      if (slice < currentSliceMs()) return undefined;
      state.spentMs += cpuNow() - state.sliceCpu;
      if (state.spentMs > limits.timeoutMs) throw { code: 'D1012', value: limits.timeoutMs, stack: new Error().stack };
      state.yields++;
      return ownTurn().then(() => {
        if (state.stop?.aborted) throw stoppedBy(state.stop);
        state.sliceStart = performance.now();
        state.sliceCpu = cpuNow();
      });
    });
  };
  const exit = (node: Node & { type?: string }, _input: unknown, environment: Environment, result: unknown): undefined => {
    const state = stateOf(environment);
    if (state) leaveStep(state, node);
    if (typeof result === 'string') {
      if (result.length > 0 && BUILDS.has(node.type!)) {
        if (result.length > limits.maxString) refuseSize('string', limits.maxString);
        if (state && (state.built += result.length) > limits.maxResultBytes) refuseSize('built', limits.maxResultBytes);
      }
    } else if (typeof result === 'object' && result !== null && (MAKES.has(node.type!) || (node as { group?: unknown }).group !== undefined)) {
      if (Array.isArray(result) && result.length > limits.maxSequence) throw { code: 'D2015', value: limits.maxSequence };
      if (jsonLongerThan(result, limits.maxResultBytes)) refuseSize('json', limits.maxResultBytes);
    }
    return undefined;
  };
  // jsonata looks its hooks up by these symbols; assign() binds them on the compiled expression.
  const assign = expression.assign as unknown as (name: symbol, value: unknown) => void;
  assign.call(expression, Symbol.for('jsonata.__evaluate_entry'), entry);
  assign.call(expression, Symbol.for('jsonata.__evaluate_exit'), exit);
}
