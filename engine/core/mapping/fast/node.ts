import { performance } from 'node:perf_hooks';
import type { Run } from './values.ts';

/**
 * What the fast path compiles each node of jsonata's AST into: a synchronous
 * closure, and, when the node can take long, the same evaluation as a
 * generator that yields where its slice ends, so that a big evaluation goes
 * on across turns of the event loop instead of stalling it (index.ts drives
 * it).
 *
 * Which nodes can take long: a loop over data that evaluates another node
 * for every item (a path's steps, a filter's predicate, an object
 * constructor's grouping) does, unless that node is a leaf (a literal, a
 * field name, a variable: its work is proportional to the item it is given);
 * any node with a child that can take long does. Every other node's work is
 * bounded by the size of its input, and it runs synchronously in either
 * mode: the longest stretch between two yields is one such evaluation.
 *
 * Both forms are compiled from the same children and share every helper of
 * jsonata's value model (values.ts); the node families (path.ts,
 * constructors.ts, expressions.ts) write them side by side, and
 * spec/core/mapping/jsonata-test-suite.spec.ts runs jsonata's suite on both.
 */
export type Evaluator = (input: unknown, run: Run) => unknown;
export type Resumable = (input: unknown, run: Run) => Generator<undefined, unknown, undefined>;

export interface Compiled {
  readonly sync: Evaluator;
  /** Absent when the node (with its children) only ever does work bounded by the size of its input: it runs synchronously in either mode. */
  readonly resume?: Resumable | undefined;
  /** A literal, a field name or a variable (with only such predicates): what it does is proportional to the item it is given. */
  readonly leaf?: boolean;
}

/** Compiles a child node (one level deeper). */
export type Child = (node: AstNode) => Compiled;

export class NotInSubset extends Error {}

/** A node of jsonata's AST, as much of it as the fast path reads. */
export interface AstNode {
  type: string;
  value?: unknown;
  position?: number;
  keepArray?: boolean;
  consarray?: boolean;
  keepSingletonArray?: boolean;
  steps?: AstNode[];
  stages?: { type: string; expr: AstNode }[];
  predicate?: { type: string; expr: AstNode }[];
  lhs?: AstNode | [AstNode, AstNode][];
  rhs?: AstNode;
  expression?: AstNode;
  expressions?: AstNode[];
  condition?: AstNode;
  then?: AstNode;
  else?: AstNode;
  procedure?: AstNode;
  arguments?: AstNode[];
}

/** How many resumable steps go between two looks at the clock. */
const RESUME_CHECK_MASK = 15;

/**
 * Whether a resumable evaluation should yield now (its slice is over); every
 * 16th call looks at the clock. The resumable forms call it once per step
 * and once per item of every loop over data.
 */
export function due(run: Run, position: number | undefined): boolean {
  if ((++run.resumeSteps & RESUME_CHECK_MASK) !== 0 || performance.now() <= run.sliceEnd) return false;
  run.position = position;
  return true;
}

/** True when none of `parts` has a resumable form: a node made only of them needs none either (unless it loops itself). */
export function allSync(parts: readonly Compiled[]): boolean {
  for (const part of parts) if (part.resume) return false;
  return true;
}

/** A string, number, true, false or null without predicate or `[]`. */
export function isLiteral(node: AstNode): boolean {
  return (node.type === 'string' || node.type === 'number' || node.type === 'value') && node.predicate === undefined && node.keepArray !== true;
}
