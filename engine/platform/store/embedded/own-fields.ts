import { createRequire } from 'node:module';
import type { Filter } from '../port.ts';
import { isJsonObject } from '../../json-object.ts';

// NeDB's matcher: the same operators, applied to the value this module reads.
const model = createRequire(import.meta.url)('@seald-io/nedb/lib/model.js') as { match(doc: unknown, query: unknown): boolean };

/**
 * NeDB reads a dotted path with `obj[part]`, prototypes included: with it,
 * `metadata.constructor.name==Object` matched every record, and
 * `metadata.region.length==2` any two-letter region. MongoDB reads stored
 * fields only. So on the embedded store every condition on a dotted path
 * (`metadata.plan`, `apps.connectionId`) is matched by NeDB's own operators
 * against the value read through own properties of objects and arrays only:
 * no prototype name is ever a field, and a text or number has no fields.
 * Conditions on top-level fields (the indexed ones) are left to NeDB as they
 * are. Paths must already be escaped (engine/platform/store/field-encoding.ts).
 */
export function ownFieldsOnly(filter: Filter): Filter {
  const out: Filter = {};
  const guarded: Filter[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') out[key] = Array.isArray(value) ? value.map((f) => ownFieldsOnly(f as Filter)) : value;
    else if (key === '$not' && isJsonObject(value)) out[key] = ownFieldsOnly(value);
    else if (!key.startsWith('$') && key.includes('.')) guarded.push(ownPathCondition(key, value));
    else out[key] = value;
  }
  if (guarded.length) out.$and = [...((out.$and as Filter[] | undefined) ?? []), ...guarded];
  return out;
}

function ownPathCondition(path: string, condition: unknown): Filter {
  const parts = path.split('.');
  const query = { v: condition };
  return {
    $where(this: unknown) {
      return model.match({ v: ownDotValue(this, parts) }, query);
    },
  };
}

/** NeDB's getDotValue (an index into an array, or the values of its items), reading own properties of objects and arrays only. */
export function ownDotValue(obj: unknown, parts: readonly string[]): unknown {
  if (parts.length === 0) return obj;
  if (obj === null || typeof obj !== 'object') return undefined;
  const head = parts[0]!;
  if (Array.isArray(obj) ? !/^(0|[1-9][0-9]*)$/.test(head) : !Object.hasOwn(obj, head)) return undefined;
  const child = (obj as Record<string, unknown>)[head];
  if (parts.length === 1) return child;
  if (Array.isArray(child)) {
    const index = parseInt(parts[1]!, 10);
    if (!Number.isNaN(index)) return Object.hasOwn(child, index) ? ownDotValue(child[index], parts.slice(2)) : undefined;
    return child.map((item) => ownDotValue(item, parts.slice(1)));
  }
  return ownDotValue(child, parts.slice(1));
}
