import { allSync, due, isLiteral, type AstNode, type Child, type Compiled } from './node.ts';
import { append, bail, createSequence, isSequence, type Run } from './values.ts';

/**
 * Array and object constructors, in both forms (node.ts), as jsonata
 * 2.2.2's evaluateUnary (`[`) and evaluateGroupExpression (`{`) build them.
 */

/** The array constructor: items are appended (a nested constructor is kept as one item, as jsonata's `item.value === '['` test does). */
export function compileArray(node: AstNode, child: Child): Compiled {
  const items = node.expressions!.map((item) => ({ evaluate: child(item), nested: item.value === '[' }));
  const cons = node.consarray === true;
  const sync = (input: unknown, run: Run): unknown => {
    let result: unknown[] = [];
    for (const item of items) result = withItem(result, item.evaluate.sync(input, run), item.nested, run);
    return finishArray(result, cons);
  };
  if (allSync(items.map((item) => item.evaluate))) return { sync };
  return {
    sync,
    resume: function* (input, run) {
      let result: unknown[] = [];
      for (const item of items) result = withItem(result, item.evaluate.resume ? yield* item.evaluate.resume(input, run) : item.evaluate.sync(input, run), item.nested, run);
      return finishArray(result, cons);
    },
  };
}

function withItem(result: unknown[], value: unknown, nested: boolean, run: Run): unknown[] {
  if (value === undefined) return result;
  if (nested) {
    result.push(value);
    return result;
  }
  return append(result, value, run) as unknown[];
}

function finishArray(result: unknown[], cons: boolean): unknown[] {
  if (cons) Object.defineProperty(result, 'cons', { enumerable: false, configurable: false, value: true });
  return result;
}

/**
 * evaluateGroupExpression for an object constructor: the input's items are
 * grouped by each pair's key, and each value is evaluated on its group (the
 * item itself when the input is one value). jsonata builds the groups and
 * the result with Object.create(null); plain objects (which V8 keeps out of
 * dictionary mode) are the same but for a `__proto__` key, which bails.
 */
export function compileObject(node: AstNode, child: Child): Compiled {
  const pairs = (node.lhs as [AstNode, AstNode][]).map(([key, value]) => ({ key: child(key), value: child(value) }));
  // The usual constructor: distinct literal keys, on one item (each key is its own group of that item).
  const literalKeys = (node.lhs as [AstNode, AstNode][]).map(([key]) => (isLiteral(key) && typeof key.value === 'string' ? key.value : undefined));
  const simple = literalKeys.every((key) => key !== undefined && !['_jsonata_lambda', '_jsonata_function', '__proto__'].includes(key)) && new Set(literalKeys).size === literalKeys.length;
  const sync = (value: unknown, run: Run): unknown => {
    if (simple && !Array.isArray(value)) {
      const result: Record<string, unknown> = {};
      for (let i = 0; i < pairs.length; i++) {
        const member = pairs[i]!.value.sync(value, run);
        if (member !== undefined) result[literalKeys[i]!] = member;
      }
      return result;
    }
    const input = groupInput(value);
    const groups: Groups = new Map();
    for (const item of input) for (let index = 0; index < pairs.length; index++) addToGroup(groups, pairs[index]!.key.sync(item, run), item, index);
    const result: Record<string, unknown> = {};
    for (const [key, group] of groups) {
      const member = pairs[group.index]!.value.sync(groupData(group, run), run);
      if (member !== undefined) result[key] = member;
    }
    return result;
  };
  // On one item, the values are evaluated once each; grouping evaluates keys for every item, and values for every group.
  if (simple ? allSync(pairs.map((pair) => pair.value)) : pairs.every((pair) => pair.key.leaf && pair.value.leaf)) return { sync };
  const position = node.position;
  const resume = function* (value: unknown, run: Run): Generator<undefined, unknown, undefined> {
    if (simple && !Array.isArray(value)) {
      const result: Record<string, unknown> = {};
      for (let i = 0; i < pairs.length; i++) {
        const evaluate = pairs[i]!.value;
        const member = evaluate.resume ? yield* evaluate.resume(value, run) : evaluate.sync(value, run);
        if (member !== undefined) result[literalKeys[i]!] = member;
      }
      return result;
    }
    const input = groupInput(value);
    const groups: Groups = new Map();
    for (const item of input) {
      if (due(run, position)) yield;
      for (let index = 0; index < pairs.length; index++) {
        const key = pairs[index]!.key;
        addToGroup(groups, key.resume ? yield* key.resume(item, run) : key.sync(item, run), item, index);
      }
    }
    const result: Record<string, unknown> = {};
    for (const [key, group] of groups) {
      if (due(run, position)) yield;
      const evaluate = pairs[group.index]!.value;
      const data = groupData(group, run);
      const member = evaluate.resume ? yield* evaluate.resume(data, run) : evaluate.sync(data, run);
      if (member !== undefined) result[key] = member;
    }
    return result;
  };
  return { sync, resume };
}

type Groups = Map<string, { items: unknown[]; index: number }>;

/** The items a constructor groups: one value is a sequence of itself; an empty input is one undefined item. */
function groupInput(value: unknown): unknown[] {
  let input: unknown[];
  if (!Array.isArray(value)) input = createSequence(value);
  else if (value.length === 0) {
    // jsonata pushes undefined into the input itself: only done here to a sequence of our own
    if (!isSequence(value)) bail();
    input = value;
  } else input = value;
  if (input.length === 0) input.push(undefined);
  return input;
}

function addToGroup(groups: Groups, key: unknown, item: unknown, index: number): void {
  if (key === undefined) return;
  if (typeof key !== 'string') bail(); // T1003
  if (key === '_jsonata_lambda' || key === '_jsonata_function' || key === '__proto__') bail(); // D1013, or a key a plain object cannot hold
  const group = groups.get(key);
  if (group === undefined) groups.set(key, { items: [item], index });
  else if (group.index !== index) bail(); // D1009
  else group.items.push(item);
}

/**
 * A group's data: its items folded with fn.append as jsonata does
 * (`data = append(data, item)` for each), in one pass instead of a copy per
 * item: the first item as it is, or, from the second on, one plain array of
 * all of them, each array item contributing its own items.
 */
function groupData(group: { items: unknown[] }, run: Run): unknown {
  let first: unknown;
  let built: unknown[] | undefined;
  for (const item of group.items) {
    if (item === undefined) continue;
    if (first === undefined) {
      first = item;
      continue;
    }
    built ??= Array.isArray(first) ? first.slice() : [first];
    if (Array.isArray(item)) for (const value of item) built.push(value);
    else built.push(item);
    if (built.length > run.maxSequence) bail(); // fn.append refuses it (the lengths only grow)
  }
  return built ?? first;
}
