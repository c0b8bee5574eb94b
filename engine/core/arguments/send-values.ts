import type { FieldProblem } from '../../platform/errors/index.ts';
import { escapeText } from './escape.ts';
import { pathInParent, type ArgumentNode } from './argument-tree.ts';
import { ABSENT, type MaybeValue } from './check-arguments.ts';
import { setPath } from './json-path.ts';
import { problem } from './rules.ts';
import type { MapperEvaluator } from './types.ts';
import { isJsonObject } from '../../platform/json-object.ts';

export interface SendContext {
  problems: FieldProblem[];
  evaluateMapper: MapperEvaluator;
  /** Every checked argument by key: the `arguments` a mapper sees. */
  arguments: Readonly<Record<string, unknown>>;
}

/**
 * Phase two: a checked value turned into what is sent. For each value, in
 * this order: children are placed under their external keys, escaping
 * applies to strings, then the mapper runs on the escaped value (with the
 * other arguments available, escaped too: see escapedArguments). Multiple
 * values are escaped and mapped one by one, then joined with the delimiter
 * when there is one.
 */
export async function sendValue(node: ArgumentNode, checked: unknown, field: string, ctx: SendContext): Promise<MaybeValue> {
  const { arg } = node;
  if (arg.multipleValues) {
    const out: unknown[] = [];
    for (const [i, element] of (checked as unknown[]).entries()) {
      const sent = await escapeAndMap(node, element, `${field}[${i}]`, ctx);
      if (sent !== ABSENT && sent !== undefined) out.push(sent);
    }
    return arg.multipleValues.delimiter === undefined ? out : out.map(asText).join(arg.multipleValues.delimiter);
  }
  let value = checked;
  if (node.children.length > 0 && arg.dataType === 'Object') value = await sendChildren(node, checked as Record<string, unknown>, field, ctx);
  if (node.children.length > 0 && arg.dataType === 'Array') {
    value = [];
    for (const [i, element] of (checked as Record<string, unknown>[]).entries()) {
      (value as unknown[]).push(await sendChildren(node, element, `${field}[${i}]`, ctx));
    }
  }
  return escapeAndMap(node, value, field, ctx);
}

async function sendChildren(node: ArgumentNode, checked: Record<string, unknown>, field: string, ctx: SendContext): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const child of node.children) {
    if (!Object.hasOwn(checked, child.arg.key)) continue;
    const sent = await sendValue(child, checked[child.arg.key], `${field}.${child.arg.key}`, ctx);
    if (sent !== ABSENT && sent !== undefined) setPath(out, pathInParent(child), sent);
  }
  return out;
}

/**
 * The value escaped, then mapped: a mapper that embeds it in the app's syntax
 * (`"DisplayName = '" & value & "'"`) embeds the escaped value, and its own
 * quotes stay as it wrote them.
 */
async function escapeAndMap(node: ArgumentNode, value: unknown, field: string, ctx: SendContext): Promise<MaybeValue> {
  const escaped = node.arg.escape && typeof value === 'string' ? escapeText(value, node.arg.escape) : value;
  let mapped = escaped;
  if (node.arg.mapper) {
    try {
      mapped = await ctx.evaluateMapper(node.arg.mapper, { value: escaped, arguments: ctx.arguments });
    } catch (thrown) {
      const error = thrown as { message?: string; code?: string };
      const code = error?.code ? ` (${error.code})` : '';
      ctx.problems.push(problem(field, 'mapper', `its mapper failed: ${error?.message ?? String(thrown)}${code}`));
      return ABSENT;
    }
    // A mapper that yields nothing (undefined) means "do not send this argument".
    if (mapped === undefined) return ABSENT;
  }
  return mapped;
}

const escaping = new WeakMap<ArgumentNode, boolean>();

/** Whether escaping applies anywhere in an argument's tree (worked out once per node: a plan's nodes live as long as it). */
export function escapes(node: ArgumentNode): boolean {
  let found = escaping.get(node);
  if (found === undefined) escaping.set(node, (found = node.arg.escape !== undefined || node.children.some(escapes)));
  return found;
}

/**
 * The checked arguments by key as mappers see them (`arguments`): each value
 * escaped as its argument says, so another argument's mapper that embeds it
 * (QuickBooks: `"DisplayName = '" & arguments.displayName & "'"`) embeds it
 * escaped. Values of arguments without an escape are the checked ones.
 */
export function escapedArguments(nodes: readonly ArgumentNode[], checked: ReadonlyMap<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(checked);
  for (const node of nodes) if (checked.has(node.arg.key) && escapes(node)) out[node.arg.key] = escapedValue(node, checked.get(node.arg.key));
  return out;
}

function escapedValue(node: ArgumentNode, value: unknown): unknown {
  const { arg } = node;
  const own = (v: unknown) => (arg.escape && typeof v === 'string' ? escapeText(v, arg.escape) : v);
  if (arg.multipleValues) return Array.isArray(value) ? value.map(own) : own(value);
  if (node.children.length > 0 && arg.dataType === 'Object' && isJsonObject(value)) return escapedChildren(node, value);
  if (node.children.length > 0 && arg.dataType === 'Array' && Array.isArray(value)) return value.map((item) => (isJsonObject(item) ? escapedChildren(node, item) : item));
  return own(value);
}

function escapedChildren(node: ArgumentNode, value: Record<string, unknown>): Record<string, unknown> {
  const out = { ...value };
  for (const child of node.children) if (Object.hasOwn(value, child.arg.key)) out[child.arg.key] = escapedValue(child, value[child.arg.key]);
  return out;
}

/** How a sent value is written as text: in a query, a path segment, a joined list or a template. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}
