import { performance } from 'node:perf_hooks';
import type jsonata from 'jsonata';

/**
 * The gateway's hooks on a compiled expression, beside jsonata's own
 * guardrails (which jsonata checks on entry to every evaluation step):
 *
 * - Cooperative scheduling: jsonata's evaluation is a chain of promises, so
 *   a runaway expression would keep the event loop busy with microtasks
 *   until its timeout, stalling every other request. Every 64 steps the
 *   entry hook checks how long this evaluation has run since it last let
 *   the event loop turn; past SLICE_MS it waits for one turn (setImmediate).
 * - Where it was: the position of the last step entered, so a timeout or a
 *   stack overflow (which carry no position) can still name the line.
 *
 * (Sequence length is jsonata's own `sequence` option, plus a check of the
 * final result in evaluate.ts: an exit hook on every step doubled the cost
 * of evaluation.)
 *
 * Per-evaluation state travels in a binding whose name no expression can
 * write (it contains a space), so one compiled expression serves concurrent
 * evaluations.
 */
export const GUARD_BINDING = 'gateway guard';
export const SLICE_MS = 10;

export interface GuardState {
  steps: number;
  sliceStart: number;
  /** Position (jsonata's offset, just past the token) of the last step entered. */
  position: number | undefined;
  yields: number;
}

export function newGuardState(): GuardState {
  return { steps: 0, sliceStart: performance.now(), position: undefined, yields: 0 };
}

type Node = { position?: number };
type Environment = { lookup(name: string): unknown };

export function installGuard(expression: jsonata.Expression): void {
  const entry = (node: Node, _input: unknown, environment: Environment): Promise<void> | undefined => {
    const state = environment.lookup(GUARD_BINDING) as GuardState | undefined;
    if (!state) return undefined;
    if (node.position !== undefined) state.position = node.position;
    if ((++state.steps & 63) !== 0 || performance.now() - state.sliceStart < SLICE_MS) return undefined;
    state.yields++;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        state.sliceStart = performance.now();
        resolve();
      }),
    );
  };
  // jsonata looks its hooks up by these symbols; assign() binds them on the compiled expression.
  const assign = expression.assign as unknown as (name: symbol, value: unknown) => void;
  assign.call(expression, Symbol.for('jsonata.__evaluate_entry'), entry);
}
