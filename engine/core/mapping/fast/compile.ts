import { performance } from 'node:perf_hooks';
import { BUILT_INS, callBuiltIn } from './functions.ts';
import { match, regexOf } from './match.ts';
import { BINARY_OPERATORS } from './operators.ts';
import { jsonLongerThan } from '../size.ts';
import { append, bail, createSequence, isArrayOfNumbers, isNumeric, isSequence, lookup, pushItem, toBoolean, type Run, type Sequence } from './values.ts';

/**
 * Compiles jsonata's AST into synchronous closures, one per node, that
 * evaluate it as jsonata 2.2.2's evaluator does (evaluate, evaluatePath,
 * evaluateStep, evaluateFilter, evaluateBinary, evaluateUnary,
 * evaluateGroupExpression, evaluateCondition, evaluateBlock,
 * evaluateFunction), minus the promises. Throws NotInSubset for a node it
 * does not evaluate; see subset.md beside this file for what is in the subset.
 */
export type Evaluator = (input: unknown, run: Run) => unknown;

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

const SLICE_CHECK_EVERY = 64;

/** Compiles `ast`; its nesting may not reach `maxDepth` (the guard's depth, depth.ts, counts one level per node under jsonata). */
export function compileAst(ast: AstNode, maxDepth: number): Evaluator {
  return compileNode(ast, 1, maxDepth);
}

function compileNode(node: AstNode, depth: number, maxDepth: number): Evaluator {
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
  return (input, run) => {
    if (++run.steps % SLICE_CHECK_EVERY === 0 && performance.now() > run.deadline) bail();
    let result = core(input, run);
    for (let i = 0; i < predicates.length; i++) result = predicates[i]!(result, run);
    // evaluate(): a sequence ends as nothing, its only item, or itself
    if (isSequence(result)) {
      if (keepArray) result.keepSingleton = true;
      if (result.length === 0) return undefined;
      if (result.length === 1) return result.keepSingleton ? result : result[0];
    }
    return result;
  };
}

/** A string, number, true, false or null without predicate or `[]`. */
function isLiteral(node: AstNode): boolean {
  return (node.type === 'string' || node.type === 'number' || node.type === 'value') && node.predicate === undefined && node.keepArray !== true;
}

type Filter = (input: unknown, run: Run) => unknown;

function compileCore(node: AstNode, child: (n: AstNode) => Evaluator): Evaluator {
  switch (node.type) {
    case 'path':
      return compilePath(node, child);
    case 'name': {
      const key = node.value as string;
      return (input, run) => lookup(input, key, run);
    }
    case 'string':
    case 'number':
    case 'value': {
      const value = node.value;
      return () => value;
    }
    case 'variable':
      return compileVariable(node);
    case 'binary':
      return compileBinary(node, child);
    case 'unary':
      return compileUnary(node, child);
    case 'condition': {
      const condition = child(node.condition!);
      const then = child(node.then!);
      const otherwise = node.else === undefined ? undefined : child(node.else);
      return (input, run) => (toBoolean(condition(input, run)) ? then(input, run) : otherwise?.(input, run));
    }
    case 'block': {
      // No bindings in the subset, so the block's own frame changes nothing.
      const expressions = node.expressions!.map(child);
      return (input, run) => {
        let result: unknown;
        for (const expression of expressions) result = expression(input, run);
        return result;
      };
    }
    case 'function':
      return compileFunction(node, child);
    default:
      throw new NotInSubset(`node type ${node.type}`);
  }
}

function compilePath(node: AstNode, child: (n: AstNode) => Evaluator): Evaluator {
  const steps = node.steps!.map((step, index) => {
    if (step.type === 'name' && typeof step.value !== 'string') throw new NotInSubset('a name that is not a string');
    const evaluate = child(step);
    const stages = (step.stages ?? []).map((stage) => compileFilter(stage, child));
    const last = index === node.steps!.length - 1;
    const whole = index === 0 && step.consarray === true;
    return { evaluate, stages, last, whole };
  });
  const absolute = node.steps![0]!.type === 'variable';
  const keepSingletonArray = node.keepSingletonArray === true;
  return (input, run) => {
    let inputSequence: unknown[] | undefined = Array.isArray(input) && !absolute ? input : undefined;
    let resultSequence: unknown;
    for (const step of steps) {
      if (step.whole) resultSequence = step.evaluate(inputSequence ?? createSequence(input), run);
      else if (inputSequence === undefined) resultSequence = evaluateStepOnOne(step.evaluate, step.stages, input, step.last, run);
      else resultSequence = evaluateStep(step.evaluate, step.stages, inputSequence, step.last, run);
      if (resultSequence === undefined || (resultSequence as unknown[]).length === 0) break;
      if (!Array.isArray(resultSequence)) bail(); // a constructed first step that is not an array: beyond the subset
      inputSequence = resultSequence;
    }
    if (keepSingletonArray) {
      let kept = resultSequence as Sequence;
      if (Array.isArray(kept) && kept.cons && !kept.sequence) kept = createSequence(kept);
      kept.keepSingleton = true; // as jsonata does, even on undefined (a TypeError: a bail)
      resultSequence = kept;
    }
    return resultSequence;
  };
}

function evaluateStep(evaluate: Evaluator, stages: Filter[], input: unknown[], last: boolean, run: Run): unknown {
  if (input.length === 1) return evaluateStepOnOne(evaluate, stages, input[0], last, run);
  const result = createSequence();
  for (const item of input) {
    let value = evaluate(item, run);
    for (const stage of stages) value = stage(value, run);
    if (value !== undefined) pushItem(result, value, run);
  }
  if (last && result.length === 1 && Array.isArray(result[0]) && !isSequence(result[0])) return result[0];
  const flattened = createSequence();
  for (const value of result) {
    if (!Array.isArray(value) || (value as Partial<Sequence>).cons) pushItem(flattened, value, run);
    else for (const item of value) pushItem(flattened, item, run);
  }
  return flattened;
}

/** evaluateStep over a sequence of one item, without the intermediate sequence. */
function evaluateStepOnOne(evaluate: Evaluator, stages: Filter[], item: unknown, last: boolean, run: Run): unknown[] {
  let value = evaluate(item, run);
  for (let i = 0; i < stages.length; i++) value = stages[i]!(value, run);
  if (value === undefined) return createSequence();
  if (last && Array.isArray(value) && !isSequence(value)) return value;
  if (!Array.isArray(value) || (value as Partial<Sequence>).cons) return createSequence(value);
  const flattened = createSequence();
  for (let i = 0; i < value.length; i++) pushItem(flattened, value[i], run);
  return flattened;
}

/** evaluateFilter: `[n]` picks by index (negative from the end); any other predicate keeps the items it is true for, or whose index it names. */
function compileFilter(stage: { type: string; expr: AstNode }, child: (n: AstNode) => Evaluator): Filter {
  if (stage.type !== 'filter') throw new NotInSubset(`stage ${stage.type}`);
  const predicate = stage.expr;
  if (predicate.type === 'number') {
    const literal = predicate.value as number;
    return (value) => {
      const input = Array.isArray(value) ? value : createSequence(value);
      let index = Math.floor(literal);
      if (index < 0) index = input.length + index;
      const item = input[index];
      if (item === undefined) return createSequence();
      if (Array.isArray(item)) return item;
      return createSequence(item);
    };
  }
  const evaluate = child(predicate);
  return (value, run) => {
    const input = Array.isArray(value) ? value : createSequence(value);
    const results = createSequence();
    for (let index = 0; index < input.length; index++) {
      const item = input[index];
      let res = evaluate(item, run);
      if (isNumeric(res)) res = [res];
      if (isArrayOfNumbers(res)) {
        for (const number of res as number[]) {
          let at = Math.floor(number);
          if (at < 0) at = input.length + at;
          if (at === index) pushItem(results, item, run);
        }
      } else if (toBoolean(res)) pushItem(results, item, run);
    }
    return results;
  };
}

function compileVariable(node: AstNode): Evaluator {
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

function compileBinary(node: AstNode, child: (n: AstNode) => Evaluator): Evaluator {
  const lhs = child(node.lhs as AstNode);
  const rhs = child(node.rhs!);
  const op = node.value as string;
  if (op === 'and') return (input, run) => (toBoolean(lhs(input, run)) ?? false) && (toBoolean(rhs(input, run)) ?? false);
  if (op === 'or') return (input, run) => (toBoolean(lhs(input, run)) ?? false) || (toBoolean(rhs(input, run)) ?? false);
  const operator = Object.prototype.hasOwnProperty.call(BINARY_OPERATORS, op) ? BINARY_OPERATORS[op] : undefined;
  if (!operator) throw new NotInSubset(`operator ${op}`);
  if (op === '&')
    return (input, run) => {
      const left = lhs(input, run);
      const result = operator(left, rhs(input, run));
      if ((result as string).length > run.maxString) bail(); // MAPPING_MAX_STRING: jsonata refuses it with its position
      return result;
    };
  return (input, run) => {
    const left = lhs(input, run);
    return operator(left, rhs(input, run));
  };
}

/** The length $join would make, counted up to the first item past `max` (any non-string makes it 0: the signature check fails anyway). */
function joinedLength(items: unknown[], separator: unknown): number {
  let total = (typeof separator === 'string' ? separator.length : 0) * Math.max(0, items.length - 1);
  for (const item of items) if (typeof item === 'string') total += item.length;
  return total;
}

function compileUnary(node: AstNode, child: (n: AstNode) => Evaluator): Evaluator {
  switch (node.value) {
    case '-': {
      const expression = child(node.expression!);
      return (input, run) => {
        const value = expression(input, run);
        if (value === undefined) return undefined;
        if (isNumeric(value)) return -value;
        return bail(); // D1002
      };
    }
    case '[':
      return compileArray(node, child);
    case '{':
      return compileObject(node, child);
    default:
      throw new NotInSubset(`unary ${String(node.value)}`);
  }
}

/** The array constructor: items are appended (a nested constructor is kept as one item, as jsonata's `item.value === '['` test does). */
function compileArray(node: AstNode, child: (n: AstNode) => Evaluator): Evaluator {
  const items = node.expressions!.map((item) => ({ evaluate: child(item), nested: item.value === '[' }));
  const cons = node.consarray === true;
  return (input, run) => {
    let result: unknown[] = [];
    for (const item of items) {
      const value = item.evaluate(input, run);
      if (value === undefined) continue;
      if (item.nested) result.push(value);
      else result = append(result, value, run) as unknown[];
    }
    if (cons) Object.defineProperty(result, 'cons', { enumerable: false, configurable: false, value: true });
    return result;
  };
}

/**
 * evaluateGroupExpression for an object constructor: the input's items are
 * grouped by each pair's key, and each value is evaluated on its group (the
 * item itself when the input is one value). jsonata builds the groups and
 * the result with Object.create(null); plain objects (which V8 keeps out of
 * dictionary mode) are the same but for a `__proto__` key, which bails.
 */
function compileObject(node: AstNode, child: (n: AstNode) => Evaluator): Evaluator {
  const pairs = (node.lhs as [AstNode, AstNode][]).map(([key, value]) => ({ key: child(key), value: child(value) }));
  // The usual constructor: distinct literal keys, on one item (each key is its own group of that item).
  const literalKeys = (node.lhs as [AstNode, AstNode][]).map(([key]) => (isLiteral(key) && typeof key.value === 'string' ? key.value : undefined));
  const simple = literalKeys.every((key) => key !== undefined && !['_jsonata_lambda', '_jsonata_function', '__proto__'].includes(key)) && new Set(literalKeys).size === literalKeys.length;
  const simpleObject = (item: unknown, run: Run) => {
    const result: Record<string, unknown> = {};
    for (let i = 0; i < pairs.length; i++) {
      const member = pairs[i]!.value(item, run);
      if (member !== undefined) result[literalKeys[i]!] = member;
    }
    return result;
  };
  return (value, run) => {
    if (simple && !Array.isArray(value)) return simpleObject(value, run);
    let input: unknown[];
    if (!Array.isArray(value)) input = createSequence(value);
    else if (value.length === 0) {
      // jsonata pushes undefined into the input itself: only done here to a sequence of our own
      if (!isSequence(value)) bail();
      input = value;
    } else input = value;
    if (input.length === 0) input.push(undefined);
    const groups = new Map<string, { data: unknown; index: number }>();
    for (const item of input) {
      for (let index = 0; index < pairs.length; index++) {
        const key = pairs[index]!.key(item, run);
        if (key === undefined) continue;
        if (typeof key !== 'string') bail(); // T1003
        if (key === '_jsonata_lambda' || key === '_jsonata_function' || key === '__proto__') bail(); // D1013, or a key a plain object cannot hold
        const group = groups.get(key);
        if (group === undefined) groups.set(key, { data: item, index });
        else if (group.index !== index) bail(); // D1009
        else group.data = append(group.data, item, run);
      }
    }
    const result: Record<string, unknown> = {};
    for (const [key, group] of groups) {
      const member = pairs[group.index]!.value(group.data, run);
      if (member !== undefined) result[key] = member;
    }
    return result;
  };
}

function compileFunction(node: AstNode, child: (n: AstNode) => Evaluator): Evaluator {
  const procedure = node.procedure!;
  if (procedure.type !== 'variable' || Object.keys(procedure).some((key) => !['type', 'value', 'position'].includes(key))) throw new NotInSubset('a call of an expression');
  const name = procedure.value as string;
  if (name === 'match') return compileMatch(node, child);
  const builtIn = BUILT_INS.get(name);
  if (!builtIn) throw new NotInSubset(`function $${name}`);
  const args = node.arguments!.map(child);
  return (input, run) => {
    if (Object.prototype.hasOwnProperty.call(run.bindings, name)) bail(); // the caller's binding shadows the built-in
    const values = args.map((arg) => arg(input, run));
    // $join and $string can build far more than they are given: check first (jsonata then refuses it with reason size)
    if (name === 'join' && Array.isArray(values[0]) && joinedLength(values[0], values[1]) > run.maxString) bail();
    if (name === 'string' && typeof values[0] === 'object' && values[0] !== null && jsonLongerThan(values[0], run.maxString)) bail();
    const result = callBuiltIn(builtIn, values, input);
    if (typeof result === 'string' && result.length > run.maxString) bail();
    return result;
  };
}

/**
 * `$match(str, /regex/)` and `$match(str, /regex/, limit)`: the second
 * argument must be a regular expression literal (a regex node, the only one
 * the subset takes); `str` and `limit` are checked as jsonata's signature
 * does (T0410 is a bail).
 */
function compileMatch(node: AstNode, child: (n: AstNode) => Evaluator): Evaluator {
  const [str, regex, limit, ...rest] = node.arguments!;
  const literal = regex?.type === 'regex' && Object.keys(regex).every((key) => ['type', 'value', 'position'].includes(key));
  const re = literal ? regexOf(regex.value) : undefined;
  if (!str || !re || rest.length > 0) throw new NotInSubset('$match without a regular expression literal');
  const string = child(str);
  const max = limit === undefined ? undefined : child(limit);
  return (input, run) => {
    if (Object.prototype.hasOwnProperty.call(run.bindings, 'match')) bail(); // the caller's binding shadows the built-in
    const value = string(input, run);
    const count = max?.(input, run);
    if (value !== undefined && typeof value !== 'string') bail();
    if (count !== undefined && typeof count !== 'number') bail();
    return match(value, re, count, run);
  };
}
