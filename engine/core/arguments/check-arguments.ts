import type { FieldProblem } from '../../platform/errors/index.ts';
import type { LookupList } from '../definitions/generated/definition-types.ts';
import type { ArgumentEntry } from '../definitions/snapshot.ts';
import type { ArgumentNode } from './argument-tree.ts';
import { coerceScalar, type Checked } from './coerce.ts';
import { isDateFormat } from './dates.ts';
import { checkListValue } from './lists/list-check.ts';
import { define } from './json-path.ts';
import { problem, shown } from './rules.ts';
import type { ListOption } from './types.ts';
import { checkValueRules, delimiterProblem } from './value-rules.ts';
import { isJsonObject } from '../../platform/json-object.ts';

export interface CheckContext {
  problems: FieldProblem[];
  lookup(list: LookupList): Promise<ListOption[]>;
  /**
   * Callers are held to the definition: unknown keys and values for hidden
   * arguments are errors. A connection's stored values are not: it may hold
   * more than these arguments, and a hidden argument simply keeps its default.
   */
  strict: boolean;
}

/** A checked value, or ABSENT when nothing is sent for the argument. */
export const ABSENT: unique symbol = Symbol('absent');
export type MaybeValue = unknown | typeof ABSENT;

/**
 * Phase one of a build: every argument's value decided (caller's, else
 * default), checked and coerced. Children are checked inside their parent's
 * value, keyed by their own keys. Problems are collected, never thrown, so
 * the caller hears about all of them at once.
 */
export async function checkArguments(nodes: readonly ArgumentNode[], given: Record<string, unknown>, prefix: string, ctx: CheckContext): Promise<Map<string, unknown>> {
  const checked = new Map<string, unknown>();
  for (const node of nodes) {
    // An optional allowSlashes Param may be left out (the path then ends before it, see fillPath), so it is not held to the path's rule here.
    const inPath = node.arg.location === 'Param' && !(node.arg.allowSlashes && !node.arg.required);
    const value = await checkNode(node, Object.hasOwn(given, node.arg.key) ? given[node.arg.key] : undefined, `${prefix}${node.arg.key}`, ctx, inPath);
    if (value === '' && node.arg.location === 'Param' && !inPath) continue;
    if (value !== ABSENT) checked.set(node.arg.key, value);
  }
  return checked;
}

export async function checkNode(node: ArgumentNode, raw: unknown, field: string, ctx: CheckContext, inPath: boolean): Promise<MaybeValue> {
  const { arg } = node;
  let value = raw;
  if (arg.hidden && !missing(raw)) {
    if (ctx.strict) ctx.problems.push(problem(field, 'hidden', 'is hidden: it cannot be set, it always sends its default'));
    value = undefined;
  }
  let fromDefault = false;
  if (missing(value) && arg.default !== undefined) {
    // A copy, so nothing downstream can change the definition's default; a string or number is immutable as it is.
    value = arg.default !== null && typeof arg.default === 'object' ? structuredClone(arg.default) : arg.default;
    fromDefault = true;
  }
  // An empty path segment would address another resource, so a Param is never blank.
  if (missing(value) || ((arg.required || inPath) && blank(value))) {
    if (arg.required) ctx.problems.push(problem(field, 'required', 'is required'));
    else if (inPath) ctx.problems.push(problem(field, 'required', 'is a path parameter, so it needs a value'));
    return ABSENT;
  }

  if (arg.multipleValues) {
    const values = Array.isArray(value) ? value : [value];
    const elementType = arg.dataType === 'List' ? 'List' : arg.multipleValues.dataType;
    const out: unknown[] = [];
    let ok = true;
    for (const [i, element] of values.entries()) {
      const result = await checkElement(arg, elementType, element, fromDefault, ctx);
      const split = result.ok ? delimiterProblem(arg, result.value) : null;
      if (split) {
        ok = false;
        ctx.problems.push(problem(Array.isArray(value) ? `${field}[${i}]` : field, split.rule, split.message));
      } else if (result.ok) out.push(result.value);
      else {
        ok = false;
        ctx.problems.push(problem(Array.isArray(value) ? `${field}[${i}]` : field, result.rule, result.message));
      }
    }
    return ok ? out : ABSENT;
  }

  if (arg.dataType === 'Object' || arg.dataType === 'Array') {
    const shape = coerceScalar(arg.dataType, value, undefined);
    if (!shape.ok) {
      ctx.problems.push(problem(field, shape.rule, shape.message));
      return ABSENT;
    }
    if (node.children.length === 0) return value;
    if (arg.dataType === 'Object') return checkChildren(node, value as Record<string, unknown>, field, ctx);
    const out: unknown[] = [];
    for (const [i, element] of (value as unknown[]).entries()) {
      if (!isJsonObject(element)) {
        ctx.problems.push(problem(`${field}[${i}]`, 'type', `must be an object with ${node.children.map((c) => c.arg.key).join(', ')} (got ${shown(element)})`));
        continue;
      }
      out.push(await checkChildren(node, element, `${field}[${i}]`, ctx));
    }
    return out;
  }

  const result = await checkElement(arg, arg.dataType, value, fromDefault, ctx);
  if (result.ok) return result.value;
  ctx.problems.push(problem(field, result.rule, result.message));
  return ABSENT;
}

/** An Object's value (or one element of an Array) whose fields are the node's children. */
async function checkChildren(node: ArgumentNode, value: Record<string, unknown>, field: string, ctx: CheckContext): Promise<Record<string, unknown>> {
  const known = new Set(node.children.map((c) => c.arg.key));
  for (const key of Object.keys(value)) {
    if (!known.has(key)) ctx.problems.push(problem(`${field}.${key === '' ? '""' : key}`, 'unknown', `is not a field of ${node.arg.key} (its fields: ${[...known].join(', ')})`));
  }
  const out: Record<string, unknown> = {};
  for (const child of node.children) {
    const checked = await checkNode(child, Object.hasOwn(value, child.arg.key) ? value[child.arg.key] : undefined, `${field}.${child.arg.key}`, ctx, false);
    if (checked !== ABSENT) define(out, child.arg.key, checked);
  }
  return out;
}

async function checkElement(arg: ArgumentEntry, dataType: ArgumentEntry['dataType'], value: unknown, fromDefault: boolean, ctx: CheckContext): Promise<Checked> {
  const coerced = coerceScalar(dataType, value, isDateFormat(arg.format) ? arg.format : undefined);
  if (!coerced.ok) return coerced;
  if (dataType === 'List' && arg.list) {
    return checkListValue(arg.list, coerced.value as string | number | boolean, { lookup: ctx.lookup, fromDefault });
  }
  // A default is the author's value, held to the rules when the definitions load (ARG_DEFAULT_RULE).
  return fromDefault ? coerced : checkValueRules(arg, coerced.value);
}

/** null is how JSON callers say "nothing": it is treated like a missing value. */
function missing(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

/** What a required argument cannot be: an empty string or an empty list of values. */
function blank(value: unknown): boolean {
  return value === '' || (Array.isArray(value) && value.length === 0);
}
