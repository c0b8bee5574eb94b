import type { FieldProblem } from '../../platform/errors/index.ts';
import type { EscapeSettings } from '../definitions/generated/definition-types.ts';
import { pathInParent, type ArgumentNode } from './argument-tree.ts';
import { ABSENT, type MaybeValue } from './check-arguments.ts';
import { setPath } from './json-path.ts';
import { problem } from './rules.ts';
import type { MapperEvaluator } from './types.ts';

export interface SendContext {
  problems: FieldProblem[];
  evaluateMapper: MapperEvaluator;
  /** Every checked argument by key: the `arguments` a mapper sees. */
  arguments: Readonly<Record<string, unknown>>;
}

/**
 * Phase two: a checked value turned into what is sent. For each value, in
 * this order: children are placed under their external keys, the mapper runs
 * (with the other arguments available), then escaping applies to strings.
 * Multiple values are mapped and escaped one by one, then joined with the
 * delimiter when there is one.
 */
export async function sendValue(node: ArgumentNode, checked: unknown, field: string, ctx: SendContext): Promise<MaybeValue> {
  const { arg } = node;
  if (arg.multipleValues) {
    const out: unknown[] = [];
    for (const [i, element] of (checked as unknown[]).entries()) {
      const sent = await mapAndEscape(node, element, `${field}[${i}]`, ctx);
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
  return mapAndEscape(node, value, field, ctx);
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

async function mapAndEscape(node: ArgumentNode, value: unknown, field: string, ctx: SendContext): Promise<MaybeValue> {
  let mapped = value;
  if (node.arg.mapper) {
    try {
      mapped = await ctx.evaluateMapper(node.arg.mapper, { value, arguments: ctx.arguments });
    } catch (thrown) {
      const error = thrown as { message?: string; code?: string };
      const code = error?.code ? ` (${error.code})` : '';
      ctx.problems.push(problem(field, 'mapper', `its mapper failed: ${error?.message ?? String(thrown)}${code}`));
      return ABSENT;
    }
    // A mapper that yields nothing (undefined) means "do not send this argument".
    if (mapped === undefined) return ABSENT;
  }
  return node.arg.escape && typeof mapped === 'string' ? escapeText(mapped, node.arg.escape) : mapped;
}

/**
 * Writes `prefix` before every character of `characters`:
 * { characters: "'", prefix: "'" } turns O'Brien into O''Brien (SQL);
 * { characters: '"\\', prefix: '\\' } turns a"b into a\"b.
 */
export function escapeText(text: string, escape: EscapeSettings): string {
  const special = new Set(escape.characters);
  let out = '';
  for (const ch of text) out += special.has(ch) ? escape.prefix + ch : ch;
  return out;
}

/** How a sent value is written as text: in a query, a path segment, a joined list or a template. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}
