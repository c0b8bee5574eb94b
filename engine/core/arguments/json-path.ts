/**
 * Sets `value` at a dotted path inside a JSON object, creating objects on the
 * way. Keys are defined as own data properties, so a key such as __proto__
 * from a definition is just a key and never reaches a prototype.
 *
 *   setPath({}, ['customer', 'address_line'], 'Main St 1') -> { customer: { address_line: 'Main St 1' } }
 */
export function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = target;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      define(at, key, value);
      return;
    }
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      const created: Record<string, unknown> = {};
      define(at, key, created);
      at = created;
    } else {
      at = next as Record<string, unknown>;
    }
  });
}

export function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Reads a dotted path (id, owner.login, tags.0) from a JSON value; undefined when any step is missing. */
export function readPath(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
