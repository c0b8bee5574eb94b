import { isScalar, parseDocument, Scalar } from 'yaml';

/**
 * How a string is written in canonical form:
 *
 * - with a line break (JSONata mappings, long descriptions): a literal block
 *   `|`, so the text reads as it runs and a one-line change is a one-line diff;
 * - otherwise plain (`name: List issues`) whenever every YAML reader gets the
 *   same string back: YAML 1.2 as the gateway reads it, and YAML 1.1 as older
 *   tools do, where `2024-06-20`, `yes` or `on` would not be strings;
 * - otherwise quoted: double quotes (`"{{token}}"`, `","`), or single quotes
 *   when the text has a double quote and no single one, so nothing needs escaping.
 *
 * The yaml library falls back to a quoted style by itself when a block or
 * plain scalar cannot hold the text (a tab-led line, a leading space, `: `).
 */
export function canonicalStringStyle(value: string): Scalar.Type {
  if (value.includes('\n')) return Scalar.BLOCK_LITERAL;
  if (readsBackAsIs(value)) return Scalar.PLAIN;
  return value.includes('"') && !value.includes("'") ? Scalar.QUOTE_SINGLE : Scalar.QUOTE_DOUBLE;
}

const cache = new Map<string, boolean>();

/** Whether `value`, written plain, reads back as this same string under YAML 1.2 and 1.1. */
function readsBackAsIs(value: string): boolean {
  if (value === '') return false;
  let known = cache.get(value);
  if (known === undefined) {
    known = (['1.2', '1.1'] as const).every((version) => {
      const doc = parseDocument(value, { version });
      return doc.errors.length === 0 && doc.warnings.length === 0 && isScalar(doc.contents) && doc.contents.value === value;
    });
    if (cache.size > 10_000) cache.clear();
    cache.set(value, known);
  }
  return known;
}
