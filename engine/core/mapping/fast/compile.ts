import { performance } from 'node:perf_hooks';
import { compileArray, compileObject } from './constructors.ts';
import { compileBinary, compileBlock, compileCondition, compileFunction, compileNegation } from './expressions.ts';
import { allSync, due, isLiteral, NotInSubset, type AstNode, type Compiled } from './node.ts';
import { compileFilter, compilePath } from './path.ts';
import { bail, isSequence, lookup, outOfSlice, type Run, type Sequence } from './values.ts';

/**
 * Compiles jsonata's AST into closures, one per node, that evaluate it as
 * jsonata 2.2.2's evaluator does (evaluate, evaluatePath, evaluateStep,
 * evaluateFilter, evaluateBinary, evaluateUnary, evaluateGroupExpression,
 * evaluateCondition, evaluateBlock, evaluateFunction), minus the promises:
 * synchronous ones, and resumable ones (generators) for the nodes that can
 * take long (node.ts). Throws NotInSubset for a node it does not evaluate;
 * see subset.md beside this file for what is in the subset.
 */
export { NotInSubset } from './node.ts';
export type { AstNode, Compiled, Evaluator, Resumable } from './node.ts';

/** The fields each node type may have; any other (group, focus, index, tuple, ancestor, seekingParent, ...) is beyond the subset. */
const COMMON = ['type', 'value', 'position', 'keepArray', 'predicate', 'consarray'];
const FIELDS: Record<string, Set<string>> = {
  path: new Set([...COMMON, 'steps', 'keepSingletonArray']),
  name: new Set([...COMMON, 'stages']),
  string: new Set(COMMON),
  number: new Set(COMMON),
  value: new Set(COMMON),
  variable: new Set([...COMMON, 'stages']),
  binary: new Set([...COMMON, 'lhs', 'rhs', 'stages']),
  unary: new Set([...COMMON, 'expression', 'expressions', 'lhs', 'stages']),
  condition: new Set([...COMMON, 'condition', 'then', 'else', 'stages']),
  block: new Set([...COMMON, 'expressions', 'stages']),
  function: new Set([...COMMON, 'procedure', 'arguments', 'stages']),
};

/**
 * The names jsonata binds itself: its functions, $now and $millis. A
 * variable of one of these names is a function unless the caller binds it,
 * and a function value is beyond the subset.
 */
const JSONATA_FUNCTIONS = new Set(
  'sum count max min average string substring substringBefore substringAfter lowercase uppercase length trim pad match contains replace split join formatNumber formatBase formatInteger parseInteger number floor ceil round abs sqrt power random boolean not map zip filter single reduce sift keys lookup append exists spread merge reverse each error assert type sort shuffle distinct base64encode base64decode encodeUrlComponent encodeUrl decodeUrlComponent decodeUrl eval toMillis fromMillis clone now millis'.split(' '),
);

/** How many steps the synchronous form takes between two looks at the clock (its slice's end). */
const SLICE_CHECK_EVERY = 64;

/** Compiles `ast`; its nesting may not reach `maxDepth` (the guard's depth, depth.ts, counts one level per node under jsonata). */
export function compileAst(ast: AstNode, maxDepth: number): Compiled {
  return compileNode(ast, 1, maxDepth);
}

function compileNode(node: AstNode, depth: number, maxDepth: number): Compiled {
  if (depth >= maxDepth) throw new NotInSubset('nested too deep');
  const fields = Object.hasOwn(FIELDS, node.type) ? FIELDS[node.type] : undefined;
  if (!fields) throw new NotInSubset(`node type ${node.type}`);
  for (const [key, value] of Object.entries(node)) if (value !== undefined && !fields.has(key)) throw new NotInSubset(`${node.type} with ${key}`);
  const child = (n: AstNode) => compileNode(n, depth + 1, maxDepth);
  const core = compileCore(node, child);
  const predicates = (node.predicate ?? []).map((p) => compileFilter(p, child));
  const keepArray = node.keepArray === true;
  // A literal cannot yield a sequence nor run long: nothing to wrap.
  if (isLiteral(node)) return core;
  const sync = (input: unknown, run: Run): unknown => {
    if (++run.steps % SLICE_CHECK_EVERY === 0 && performance.now() > run.deadline) outOfSlice();
    let result = core.sync(input, run);
    for (let i = 0; i < predicates.length; i++) result = predicates[i]!.sync(result, run);
    return ended(result, keepArray);
  };
  if (core.leaf && predicates.every((p) => p.leaf)) return { sync, leaf: true };
  if (!core.resume && allSync(predicates)) return { sync };
  const position = node.position;
  const resume = function* (input: unknown, run: Run): Generator<undefined, unknown, undefined> {
    if (due(run, position)) yield;
    let result = core.resume ? yield* core.resume(input, run) : core.sync(input, run);
    for (const predicate of predicates) result = predicate.resume ? yield* predicate.resume(result, run) : predicate.sync(result, run);
    return ended(result, keepArray);
  };
  return { sync, resume };
}

/** evaluate()'s end of a step: a sequence ends as nothing, its only item, or itself. */
function ended(result: unknown, keepArray: boolean): unknown {
  if (isSequence(result)) {
    if (keepArray) result.keepSingleton = true;
    if (result.length === 0) return undefined;
    if (result.length === 1) return result.keepSingleton ? result : result[0];
  }
  return result;
}

function compileCore(node: AstNode, child: (n: AstNode) => Compiled): Compiled {
  switch (node.type) {
    case 'path':
      return compilePath(node, child);
    case 'name': {
      const key = node.value as string;
      return { sync: (input, run) => lookup(input, key, run), leaf: true };
    }
    case 'string':
    case 'number':
    case 'value': {
      const value = node.value;
      return { sync: () => value, leaf: true };
    }
    case 'variable':
      return { sync: compileVariable(node), leaf: true };
    case 'binary':
      return compileBinary(node, child);
    case 'unary':
      if (node.value === '-') return compileNegation(node, child);
      if (node.value === '[') return compileArray(node, child);
      if (node.value === '{') return compileObject(node, child);
      throw new NotInSubset(`unary ${String(node.value)}`);
    case 'condition':
      return compileCondition(node, child);
    case 'block':
      return compileBlock(node, child);
    case 'function':
      return compileFunction(node, child);
    default:
      throw new NotInSubset(`node type ${node.type}`);
  }
}

function compileVariable(node: AstNode): (input: unknown, run: Run) => unknown {
  const name = node.value as string;
  if (name === '') return (input) => (Array.isArray(input) && (input as Partial<Sequence>).outerWrapper ? input[0] : input);
  if (name === '$') return (_input, run) => run.root;
  const shadowsJsonata = JSONATA_FUNCTIONS.has(name);
  return (_input, run) => {
    if (!Object.prototype.hasOwnProperty.call(run.bindings, name)) return shadowsJsonata ? bail() : undefined;
    const value = run.bindings[name];
    if (typeof value === 'function') bail();
    return value;
  };
}
