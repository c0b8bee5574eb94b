import jsonata from 'jsonata';
import type { AstNode } from '../core/mapping/fast/compile.ts';
import { described, type Difference } from './structural-diff.ts';

/**
 * A row field a response mapping promises, and where in the provider's answer
 * it reads its value: `"country": address.country` reads the path
 * address → country of the row's item.
 */
export interface PromisedField {
  name: string;
  /** The paths of names its value expression reads (a path that starts at a variable, `$$.arguments.x`, is not one). */
  sources: string[][];
}

/**
 * The row fields of a response mapping: the keys of the object built for each
 * row inside the value of its `"data"`.
 *
 * ```yaml
 * response: |
 *   { "data": [body.data.{ "id": id, "email": email, "country": address.country }] }
 * ```
 *
 * promises id (read from id), email (email) and country (address.country).
 * A mapping whose data is the body as it is, or that builds no object, promises nothing.
 */
export function promisedRowFields(source: string): PromisedField[] {
  let ast: AstNode;
  try {
    ast = jsonata(source).ast() as unknown as AstNode;
  } catch {
    return [];
  }
  const data = pairsOf(ast)?.find(([key]) => key.value === 'data')?.[1];
  if (!data) return [];
  const fields = new Map<string, PromisedField>();
  for (const row of rowConstructors(data)) {
    for (const [key, value] of pairsOf(row) ?? []) {
      if (key.type !== 'string' || typeof key.value !== 'string') continue;
      const field = fields.get(key.value) ?? { name: key.value, sources: [] };
      field.sources.push(...pathsRead(value));
      fields.set(key.value, field);
    }
  }
  return [...fields.values()];
}

/** The pairs of an object constructor node (`{ "a": x }` or a path step `.{ ... }`), else undefined. */
function pairsOf(node: AstNode): [AstNode, AstNode][] | undefined {
  return node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs) ? node.lhs : undefined;
}

/** The outermost object constructors of an expression: the shapes of its rows. */
function rowConstructors(node: AstNode): AstNode[] {
  if (pairsOf(node)) return [node];
  return children(node).flatMap(rowConstructors);
}

function children(node: AstNode): AstNode[] {
  const found: AstNode[] = [];
  const add = (child: unknown) => {
    if (child && typeof child === 'object' && typeof (child as AstNode).type === 'string') found.push(child as AstNode);
  };
  for (const step of node.steps ?? []) add(step);
  for (const stage of [...(node.stages ?? []), ...(node.predicate ?? [])]) add(stage.expr);
  if (Array.isArray(node.lhs)) for (const [key, value] of node.lhs) add(key), add(value);
  else add(node.lhs);
  add(node.rhs);
  add(node.expression);
  for (const expression of node.expressions ?? []) add(expression);
  add(node.condition);
  add(node.then);
  add(node.else);
  for (const argument of node.arguments ?? []) add(argument);
  return found;
}

/** The paths of plain names an expression reads: `$fromMillis(created * 1000)` reads [created]. */
function pathsRead(node: AstNode): string[][] {
  if (node.type === 'path' && node.steps?.length) {
    const names: string[] = [];
    for (const step of node.steps) {
      if (step.type !== 'name' || typeof step.value !== 'string') break;
      names.push(step.value);
    }
    // A path that starts elsewhere ($$, a variable, a wildcard) is not read from the row's item.
    const own = names.length === node.steps.length || (names.length > 0 && names.length === node.steps.length - 1) ? [names] : [];
    return [...own.filter((n) => n.length > 0), ...node.steps.flatMap((step) => (step.type === 'name' ? [] : children(step).flatMap(pathsRead)))];
  }
  if (node.type === 'name' && typeof node.value === 'string') return [[node.value]];
  return children(node).flatMap(pathsRead);
}

const isValue = (value: unknown) => value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0);

/**
 * Where some object in `answer`, at any depth, has a value at the path of names (arrays on the way are
 * looked into): `body.data[0].address.country` for [country]; undefined when nowhere.
 */
export function valueAt(answer: unknown, names: readonly string[]): string | undefined {
  const seen: { node: unknown; at: string }[] = [{ node: answer, at: '' }];
  for (let i = 0; i < seen.length && i < 100_000; i++) {
    const { node, at } = seen[i]!;
    if (Array.isArray(node)) node.forEach((item, index) => seen.push({ node: item, at: `${at}[${index}]` }));
    else if (node && typeof node === 'object') {
      if (isValue(follow(node, names))) return `${at}${at ? '.' : ''}${names.join('.')}`;
      for (const [key, value] of Object.entries(node)) seen.push({ node: value, at: `${at}${at ? '.' : ''}${key}` });
    }
  }
  return undefined;
}

function follow(node: unknown, names: readonly string[]): unknown {
  let current: unknown = node;
  for (const name of names) {
    if (Array.isArray(current)) current = current.flatMap((item) => (item && typeof item === 'object' ? [(item as Record<string, unknown>)[name]] : [])).filter(isValue);
    else if (current && typeof current === 'object') current = (current as Record<string, unknown>)[name];
    else return undefined;
  }
  return current;
}

/**
 * What a case whose response is the provider's documented example (`example:`
 * in the case file) must show: at least one row, and no promised row field
 * without a value in every row while the example has a value where that
 * field reads it. A mapping that reads the wrong path (`customer.email` for a
 * body whose email is at the top) is caught here, though each case's
 * `expect.data` would have agreed with it. `exampleAnswer` is the mapping's input: { status, headers, body }.
 */
export function exampleGaps(responseSource: string | undefined, exampleAnswer: unknown, rows: readonly unknown[]): Difference[] {
  if (rows.length === 0) return [{ path: 'example', expected: described('at least one row from the documented example'), actual: described('no rows') }];
  if (responseSource === undefined) return [];
  const gaps: Difference[] = [];
  for (const field of promisedRowFields(responseSource)) {
    const filled = rows.some((row) => row && typeof row === 'object' && isValue((row as Record<string, unknown>)[field.name]));
    if (filled) continue;
    const read = field.sources.map((names) => valueAt(exampleAnswer, names)).find((at) => at !== undefined);
    if (read) {
      gaps.push({
        path: `example: row field "${field.name}"`,
        expected: described(`a value (the documented example has one at ${read})`),
        actual: described('null or missing in every row'),
      });
    }
  }
  return gaps;
}
