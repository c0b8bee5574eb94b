import { isCollection, isPair, type Document, type Node } from 'yaml';
import { MAX_DEFINITION_DEPTH } from '../core/definitions/parsed-file.ts';

/** What fmt says of a file nested past MAX_DEFINITION_DEPTH: validate's words (parsed-file.ts), so both name the same place alike. */
export const TOO_DEEP = `mappings and sequences are nested more than ${MAX_DEFINITION_DEPTH} levels deep here; no definition needs that many: flatten it`;
/** ... and of one so deep that yaml's parser ran out of call stack before any level could be located. */
export const FAR_TOO_DEEP = `mappings and sequences are nested thousands of levels deep here (more than ${MAX_DEFINITION_DEPTH} may not be); no definition needs that many: flatten it`;

/**
 * The offset of the first mapping or sequence nested past MAX_DEFINITION_DEPTH (the file's own mapping is level 1,
 * as the loader counts), or null. Walked with a stack of its own: formatting such a file recursed until the call
 * stack ran out, and fmt then blamed an alias (700 levels) or called valid YAML invalid (1,000 levels).
 */
export function tooDeepAt(doc: Document): number | null {
  const stack: { node: Node; depth: number }[] = [];
  if (isCollection(doc.contents)) stack.push({ node: doc.contents, depth: 0 });
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (depth >= MAX_DEFINITION_DEPTH) return node.range?.[0] ?? 0;
    if (!isCollection(node)) continue;
    for (let i = node.items.length - 1; i >= 0; i--) {
      const item = node.items[i];
      const child = isPair(item) ? item.value : item;
      if (isCollection(child)) stack.push({ node: child as Node, depth: depth + 1 });
    }
  }
  return null;
}
