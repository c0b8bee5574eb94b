import { isMap, isPair, isScalar, isSeq, type Document } from 'yaml';

/**
 * The offsets (and text) of keys that repeat an earlier key of the same mapping, in one
 * pass with a set per mapping. `yaml`'s own check (`uniqueKeys`) compares
 * each key with every earlier one: a file of 20,000 keys took 14 s. Keys are
 * equal as `yaml` compares them: scalars by value (1 and "1" differ), other
 * keys only when they are the same node.
 */
export function duplicateKeyOffsets(document: Document.Parsed): { offset: number; key: string }[] {
  const offsets: { offset: number; key: string }[] = [];
  const stack: unknown[] = [document.contents];
  while (stack.length) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        // NaN is never equal to itself, so never a duplicate (a set would say it is).
        if (key === key && seen.has(key)) offsets.push({ offset: (pair.key as { range?: [number] } | null)?.range?.[0] ?? 0, key: String(key).slice(0, 100) });
        seen.add(key);
        stack.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    } else if (isPair(node)) {
      stack.push(node.key, node.value);
    }
  }
  return offsets;
}
