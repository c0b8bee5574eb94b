import { BUILT_INS, callBuiltIn, type BuiltIn } from './functions.ts';
import { match, regexOf } from './match.ts';
import { allSync, NotInSubset, type AstNode, type Child, type Compiled } from './node.ts';
import { BINARY_OPERATORS } from './operators.ts';
import { jsonLongerThan } from '../size.ts';
import { bail, isNumeric, toBoolean, type Run } from './values.ts';
import type { LinearRegex } from '../regex.ts';

/**
 * Operators, conditions, blocks and calls of built-ins, in both forms
 * (node.ts), as jsonata 2.2.2's evaluateBinary, evaluateUnary (`-`),
 * evaluateCondition, evaluateBlock and evaluateFunction do them. None loops
 * over data itself: each has a resumable form only when a child has one.
 */

export function compileBinary(node: AstNode, child: Child): Compiled {
  const lhs = child(node.lhs as AstNode);
  const rhs = child(node.rhs!);
  const op = node.value as string;
  if (op === 'and' || op === 'or') {
    // The right side is evaluated only when the left does not decide.
    const decided = (left: boolean) => (op === 'and' ? !left : left);
    const sync = (input: unknown, run: Run) => {
      const left = toBoolean(lhs.sync(input, run)) ?? false;
      return decided(left) ? left : (toBoolean(rhs.sync(input, run)) ?? false);
    };
    if (allSync([lhs, rhs])) return { sync };
    return {
      sync,
      resume: function* (input, run) {
        const left = toBoolean(lhs.resume ? yield* lhs.resume(input, run) : lhs.sync(input, run)) ?? false;
        return decided(left) ? left : (toBoolean(rhs.resume ? yield* rhs.resume(input, run) : rhs.sync(input, run)) ?? false);
      },
    };
  }
  const operator = Object.prototype.hasOwnProperty.call(BINARY_OPERATORS, op) ? BINARY_OPERATORS[op] : undefined;
  if (!operator) throw new NotInSubset(`operator ${op}`);
  const concat = op === '&';
  const combine = (left: unknown, right: unknown, run: Run) => {
    const result = operator(left, right);
    if (concat && (result as string).length > run.maxString) bail(); // MAPPING_MAX_STRING: jsonata refuses it with its position
    return result;
  };
  const sync = (input: unknown, run: Run) => {
    const left = lhs.sync(input, run);
    return combine(left, rhs.sync(input, run), run);
  };
  if (allSync([lhs, rhs])) return { sync };
  return {
    sync,
    resume: function* (input, run) {
      const left = lhs.resume ? yield* lhs.resume(input, run) : lhs.sync(input, run);
      return combine(left, rhs.resume ? yield* rhs.resume(input, run) : rhs.sync(input, run), run);
    },
  };
}

export function compileNegation(node: AstNode, child: Child): Compiled {
  const expression = child(node.expression!);
  const negate = (value: unknown): unknown => {
    if (value === undefined) return undefined;
    if (isNumeric(value)) return -value;
    return bail(); // D1002
  };
  const sync = (input: unknown, run: Run) => negate(expression.sync(input, run));
  if (!expression.resume) return { sync };
  const resume = expression.resume;
  return {
    sync,
    resume: function* (input, run) {
      return negate(yield* resume(input, run));
    },
  };
}

export function compileCondition(node: AstNode, child: Child): Compiled {
  const condition = child(node.condition!);
  const then = child(node.then!);
  const otherwise = node.else === undefined ? undefined : child(node.else);
  const sync = (input: unknown, run: Run) => (toBoolean(condition.sync(input, run)) ? then.sync(input, run) : otherwise?.sync(input, run));
  if (allSync(otherwise ? [condition, then, otherwise] : [condition, then])) return { sync };
  return {
    sync,
    resume: function* (input, run) {
      const chosen = toBoolean(condition.resume ? yield* condition.resume(input, run) : condition.sync(input, run)) ? then : otherwise;
      if (!chosen) return undefined;
      return chosen.resume ? yield* chosen.resume(input, run) : chosen.sync(input, run);
    },
  };
}

/** A block `(a; b)`: no bindings in the subset, so the block's own frame changes nothing. */
export function compileBlock(node: AstNode, child: Child): Compiled {
  const expressions = node.expressions!.map(child);
  const sync = (input: unknown, run: Run) => {
    let result: unknown;
    for (const expression of expressions) result = expression.sync(input, run);
    return result;
  };
  if (allSync(expressions)) return { sync };
  return {
    sync,
    resume: function* (input, run) {
      let result: unknown;
      for (const expression of expressions) result = expression.resume ? yield* expression.resume(input, run) : expression.sync(input, run);
      return result;
    },
  };
}

export function compileFunction(node: AstNode, child: Child): Compiled {
  const procedure = node.procedure!;
  if (procedure.type !== 'variable' || Object.keys(procedure).some((key) => !['type', 'value', 'position'].includes(key))) throw new NotInSubset('a call of an expression');
  const name = procedure.value as string;
  if (name === 'match') return compileMatch(node, child);
  const builtIn = BUILT_INS.get(name);
  if (!builtIn) throw new NotInSubset(`function $${name}`);
  const args = node.arguments!.map(child);
  const sync = (input: unknown, run: Run) => {
    if (Object.prototype.hasOwnProperty.call(run.bindings, name)) bail(); // the caller's binding shadows the built-in
    return call(name, builtIn, args.map((arg) => arg.sync(input, run)), input, run);
  };
  if (allSync(args)) return { sync };
  return {
    sync,
    resume: function* (input, run) {
      if (Object.prototype.hasOwnProperty.call(run.bindings, name)) bail();
      const values: unknown[] = [];
      for (const arg of args) values.push(arg.resume ? yield* arg.resume(input, run) : arg.sync(input, run));
      return call(name, builtIn, values, input, run);
    },
  };
}

function call(name: string, builtIn: BuiltIn, values: unknown[], input: unknown, run: Run): unknown {
  // $join and $string can build far more than they are given: check first (jsonata then refuses it with reason size)
  if (name === 'join' && Array.isArray(values[0]) && joinedLength(values[0], values[1]) > run.maxString) bail();
  if (name === 'string' && typeof values[0] === 'object' && values[0] !== null && jsonLongerThan(values[0], run.maxString)) bail();
  const result = callBuiltIn(builtIn, values, input);
  if (typeof result === 'string' && result.length > run.maxString) bail();
  return result;
}

/** The length $join would make, counted up to the first item past `max` (any non-string makes it 0: the signature check fails anyway). */
function joinedLength(items: unknown[], separator: unknown): number {
  let total = (typeof separator === 'string' ? separator.length : 0) * Math.max(0, items.length - 1);
  for (const item of items) if (typeof item === 'string') total += item.length;
  return total;
}

/**
 * `$match(str, /regex/)` and `$match(str, /regex/, limit)`: the second
 * argument must be a regular expression literal (a regex node, the only one
 * the subset takes); `str` and `limit` are checked as jsonata's signature
 * does (T0410 is a bail).
 */
function compileMatch(node: AstNode, child: Child): Compiled {
  const [str, regex, limit, ...rest] = node.arguments!;
  const literal = regex?.type === 'regex' && Object.keys(regex).every((key) => ['type', 'value', 'position'].includes(key));
  const re = literal ? regexOf(regex.value) : undefined;
  if (!str || !re || rest.length > 0) throw new NotInSubset('$match without a regular expression literal');
  const string = child(str);
  const max = limit === undefined ? undefined : child(limit);
  const sync = (input: unknown, run: Run) => {
    if (Object.prototype.hasOwnProperty.call(run.bindings, 'match')) bail(); // the caller's binding shadows the built-in
    return matched(string.sync(input, run), max?.sync(input, run), re, run);
  };
  if (allSync(max ? [string, max] : [string])) return { sync };
  return {
    sync,
    resume: function* (input, run) {
      if (Object.prototype.hasOwnProperty.call(run.bindings, 'match')) bail();
      const value = string.resume ? yield* string.resume(input, run) : string.sync(input, run);
      const count = max === undefined ? undefined : max.resume ? yield* max.resume(input, run) : max.sync(input, run);
      return matched(value, count, re, run);
    },
  };
}

function matched(value: unknown, count: unknown, re: LinearRegex, run: Run): unknown {
  if (value !== undefined && typeof value !== 'string') bail();
  if (count !== undefined && typeof count !== 'number') bail();
  return match(value, re, count as number | undefined, run);
}
