import type { JsonValue } from '../runtime/http/types.ts';

/**
 * Plain JSON from what jsonata returns: no sequence flags, no functions, no
 * undefined members. An array longer than `maxSequence` anywhere in it is
 * refused like a sequence jsonata built too long (D2015).
 */
export function toJson(value: unknown, maxSequence = Infinity): JsonValue | undefined {
  if (value === undefined || typeof value === 'function') return undefined;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) {
    if (value.length > maxSequence) throw { code: 'D2015', value: maxSequence };
    const items: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const json = toJson(value[i], maxSequence);
      if (json !== undefined) items.push(json);
    }
    return items;
  }
  if (typeof value === 'object') {
    if ('_jsonata_lambda' in value || '_jsonata_function' in value) return undefined;
    const result: { [key: string]: JsonValue } = {};
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const json = toJson((value as Record<string, unknown>)[keys[i]!], maxSequence);
      if (json !== undefined) result[keys[i]!] = json;
    }
    return result;
  }
  return undefined;
}
