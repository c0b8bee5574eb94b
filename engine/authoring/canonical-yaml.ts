import { isDeepStrictEqual } from 'node:util';
import { isCollection, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import type { DefinitionKind } from '../core/definitions/layout.ts';
import { aliasProblem } from '../core/definitions/yaml-aliases.ts';
import { firstLine } from '../core/definitions/parsed-file.ts';
import { canonicalStringStyle } from './scalar-style.ts';
import { FAR_TOO_DEEP, TOO_DEEP, tooDeepAt } from './yaml-depth.ts';
import { SchemaShapes, type SchemaAt } from './schema-order.ts';

/** How every canonical file is written out (see docs/definitions.md, "Canonical form"). */
export const CANONICAL_OPTIONS = {
  indent: 2,
  // Sequences are indented under their key, as every bundled file writes them.
  indentSeq: true,
  // No folding: a long line stays one line, so a changed word is a one-line diff.
  lineWidth: 0,
  singleQuote: null,
  flowCollectionPadding: true,
} as const;

export type FormatOutcome =
  | { ok: true; text: string; changed: boolean }
  | { ok: false; line: number; column: number; reason: string };

let shared: SchemaShapes | null = null;

/**
 * A definition file of `kind` in canonical form: keys in schema order
 * (unknown keys last, as written), block collections, canonical scalar styles,
 * no blank lines, comments kept with the key they stand before or after.
 * The result is checked to read back as the same value; a file that would
 * not (an alias moved before its anchor, say) is refused, never rewritten.
 */
export function formatDefinition(kind: DefinitionKind, text: string, shapes: SchemaShapes = (shared ??= new SchemaShapes())): FormatOutcome {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, keepSourceTokens: false, uniqueKeys: true });
  if (doc.errors.length) {
    const { line, col } = lines.linePos(doc.errors[0]!.pos[0]);
    // yaml's parser runs out of call stack on a file nested thousands deep: that is the file's depth, said as validate says it.
    if (doc.errors[0]!.message.includes('Maximum call stack size exceeded')) return { ok: false, line, column: col, reason: FAR_TOO_DEEP };
    return { ok: false, line, column: col, reason: `not valid YAML: ${firstLine(doc.errors[0]!.message)}` };
  }
  // An empty or comment-only file has nothing to order; validate says what it lacks.
  if (!doc.contents) return { ok: true, text, changed: false };
  // Aliases bounded as the loader bounds them; within the bounds, any use is fine (yaml's maxAliasCount threw).
  const refused = aliasProblem(doc);
  if (refused) {
    const { line, col } = lines.linePos(refused.offset);
    return { ok: false, line, column: col, reason: refused.message };
  }
  const deep = tooDeepAt(doc);
  if (deep !== null) {
    const { line, col } = lines.linePos(deep);
    return { ok: false, line, column: col, reason: TOO_DEEP };
  }
  const before = doc.toJS({ maxAliasCount: -1 }) as unknown;
  canonicalise(doc, doc.contents as Node | null, shapes.root(kind), shapes);
  (doc.contents as Node).spaceBefore = false;
  // A lone `---` says nothing in a one-document file.
  if (doc.directives) doc.directives.docStart = null;
  let formatted: string;
  try {
    formatted = doc.toString(CANONICAL_OPTIONS);
  } catch {
    formatted = '';
  }
  const check = parseDocument(formatted, { uniqueKeys: true });
  if (!formatted || check.errors.length || !isDeepStrictEqual(check.toJS({ maxAliasCount: -1 }), before)) {
    return { ok: false, line: 1, column: 1, reason: 'cannot be formatted without changing its meaning (an alias the key order would put before its anchor?); left as is' };
  }
  return { ok: true, text: formatted, changed: formatted !== text };
}

function canonicalise(doc: Document, node: Node | null, schema: SchemaAt | null, shapes: SchemaShapes): void {
  if (!node) return;
  node.spaceBefore = false;
  if (isScalar(node)) {
    if (typeof node.value === 'string') node.type = canonicalStringStyle(node.value);
    return;
  }
  if (!isCollection(node)) return;
  // Block style everywhere: one way to write a list, whoever wrote it.
  node.flow = false;
  if (isSeq(node)) {
    const items = shapes.items(shapes.resolve(schema));
    for (const item of node.items) canonicalise(doc, item as Node, items, shapes);
    return;
  }
  if (isMap(node)) {
    const map = node as YAMLMap<unknown, unknown>;
    const shape = shapes.resolve(schema, (property) => scalarValueOf(map, property));
    reorder(map, shapes.propertyOrder(shape));
    for (const pair of map.items) {
      canonicalise(doc, pair.key as Node, null, shapes);
      canonicalise(doc, pair.value as Node, shapes.property(shape, String(keyOf(pair))), shapes);
    }
  }
}

/**
 * Pairs in `order` first, the rest after them as written. The comment above
 * the first pair introduces the whole mapping (a file's modeline and link, an
 * argument's note), so it stays at the top whichever pair comes first now.
 */
function reorder(map: YAMLMap<unknown, unknown>, order: string[]): void {
  const rank = (pair: Pair<unknown, unknown>, index: number) => {
    const at = order.indexOf(String(keyOf(pair)));
    return at === -1 ? order.length + index : at;
  };
  const first = map.items[0];
  const sorted = map.items.map((pair, index) => ({ pair, r: rank(pair, index) })).sort((a, b) => a.r - b.r).map((e) => e.pair);
  if (first && sorted[0] !== first && isNodeLike(first.key) && first.key.commentBefore) {
    const header = first.key.commentBefore;
    first.key.commentBefore = undefined;
    const lead = sorted[0]!.key;
    if (isNodeLike(lead)) lead.commentBefore = lead.commentBefore ? `${header}\n${lead.commentBefore}` : header;
  }
  map.items = sorted;
}

function keyOf(pair: Pair<unknown, unknown>): unknown {
  return isScalar(pair.key) ? pair.key.value : pair.key;
}

function scalarValueOf(map: YAMLMap<unknown, unknown>, key: string): unknown {
  const pair = map.items.find((p) => isPair(p) && String(keyOf(p)) === key);
  return pair && isScalar(pair.value) ? pair.value.value : undefined;
}

function isNodeLike(value: unknown): value is Node {
  return isScalar(value) || isCollection(value);
}
