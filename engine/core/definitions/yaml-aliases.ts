import { isAlias, isMap, isPair, isSeq, type Document, type Node } from 'yaml';
import type { ProblemCode } from './problems.ts';

/**
 * The most aliases one file may use. `yaml` finds each alias's anchor by a
 * scan of the file's anchors and aliases, so resolving them costs
 * aliases x (anchors + aliases): 10,000 aliases took 3 s, 1,000 take ~10 ms.
 */
export const MAX_ALIASES = 1_000;

/**
 * The most values (mappings, sequences, scalars, keys included) a file may
 * hold once every alias is expanded. Every later stage walks the value as a
 * tree, so an alias bomb ("billion laughs": 9 anchors of 9 aliases is 9^9
 * values) is refused here, before it is expanded. Ordinary alias use (one
 * anchor used 100 times) stays far below it.
 */
export const MAX_EXPANDED_VALUES = 100_000;

export interface AliasProblem {
  /** Offset of the alias at fault in the text. */
  offset: number;
  code: ProblemCode;
  message: string;
}

/**
 * The first alias of a parsed document that the loader refuses, or null: one
 * naming no anchor before it (yaml would throw when the value is built), one
 * inside its own anchor (a value that contains itself), the alias past
 * MAX_ALIASES, or the alias at which the expanded file passes
 * MAX_EXPANDED_VALUES (or the `limits` given: an OpenAPI description read by
 * the importer is larger than any definition file). One pass over the node tree in document order,
 * counting each alias as the size of its anchor's value (known once that
 * value is complete): linear in the file, whatever the aliases expand to.
 */
export function aliasProblem(document: Document.Parsed, limits: { aliases: number; expandedValues: number } = { aliases: MAX_ALIASES, expandedValues: MAX_EXPANDED_VALUES }): AliasProblem | null {
  /** The node each anchor names at this point of the document (a later anchor of the same name replaces it, as in yaml). */
  const anchors = new Map<string, Node>();
  /** The expanded size of each anchored node, once its value is complete. */
  const sizes = new Map<Node, number>();
  let total = 0;
  let aliases = 0;
  // An explicit stack: a deeply nested file must not overflow this one's.
  type Frame = { node: unknown; anchoredFrom?: number };
  const stack: Frame[] = [{ node: document.contents }];
  while (stack.length) {
    const frame = stack.pop()!;
    if (frame.anchoredFrom !== undefined) {
      sizes.set(frame.node as Node, total - frame.anchoredFrom);
      continue;
    }
    const node = frame.node;
    if (node === null || node === undefined) continue;
    if (isPair(node)) {
      stack.push({ node: node.value }, { node: node.key });
      continue;
    }
    if (isAlias(node)) {
      const offset = node.range?.[0] ?? 0;
      if (++aliases > limits.aliases) {
        return { offset, code: 'YAML_ALIAS_LIMIT', message: `more than ${limits.aliases} aliases in one file; write the values out or use fewer anchors` };
      }
      const target = anchors.get(node.source);
      if (!target) return { offset, code: 'YAML_SYNTAX', message: `alias *${node.source} names no anchor set before it (&${node.source})` };
      const size = sizes.get(target);
      if (size === undefined) return { offset, code: 'YAML_SYNTAX', message: `alias *${node.source} is inside its own anchor: a value cannot contain itself` };
      total += size;
      if (total > limits.expandedValues) {
        return {
          offset,
          code: 'YAML_ALIAS_LIMIT',
          message: `aliases expand this file to more than ${limits.expandedValues} values (at *${node.source}, ${size} values each time); an alias bomb is refused: use fewer aliases or write the values out`,
        };
      }
      continue;
    }
    total++;
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) {
      anchors.set(anchor, node as Node);
      stack.push({ node, anchoredFrom: total - 1 });
    }
    if (isMap(node) || isSeq(node)) for (let i = node.items.length - 1; i >= 0; i--) stack.push({ node: node.items[i] });
  }
  return null;
}
