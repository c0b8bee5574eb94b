/**
 * How big what a mapping builds may get (MAPPING_MAX_STRING,
 * MAPPING_MAX_RESULT_BYTES), and the error that stops it: jsonata-style
 * (`code: 'SIZE'`), so evaluate.ts turns it into a MappingError with reason
 * `size`, wherever in jsonata or the fast path it was thrown.
 */
export interface SizeRefusal {
  code: 'SIZE';
  /** What went over: one string, the strings one evaluation built, or a value's JSON. */
  what: 'string' | 'built' | 'json';
  limit: number;
  position?: number;
}

export function refuseSize(what: SizeRefusal['what'], limit: number): never {
  throw { code: 'SIZE', what, limit } satisfies SizeRefusal;
}

export function isSizeRefusal(value: unknown): value is SizeRefusal {
  return typeof value === 'object' && value !== null && (value as { code?: unknown }).code === 'SIZE';
}

/**
 * Whether `value` written as JSON would take more than `budget` characters,
 * counted without writing it and never more than its compact JSON: strings
 * by length and quotes, numbers as one character, true, false and null as
 * four, keys with their quotes and colon, one separator per member. So an
 * app's response always counts at most its own length. Each distinct object
 * or array is measured once, and its size remembered with it (values are
 * not changed once a step has made them; the copy in to-json.ts counts
 * again anyway): an object that refers to another many times over, whose
 * JSON doubles at each level while it holds little (a mapping can build
 * one), costs its distinct parts, not its JSON; and it stops as soon as a
 * size passes the budget.
 */
export function jsonLongerThan(value: unknown, budget: number): boolean {
  return jsonSizeUpTo(value, budget) > budget;
}

const isJsonataFunction = (item: object): boolean => '_jsonata_lambda' in item || '_jsonata_function' in item;

const leafSize = (item: unknown): number => (typeof item === 'string' ? item.length + 2 : typeof item === 'number' ? 1 : 4);

const MEASURED = new WeakMap<object, number>();

/** The approximate JSON length of `value`, or some number past `budget` once it is known to be more. */
export function jsonSizeUpTo(value: unknown, budget: number): number {
  if (typeof value !== 'object' || value === null || isJsonataFunction(value)) return leafSize(value);
  const known = MEASURED.get(value);
  if (known !== undefined) return known;
  const sizes = MEASURED;
  const open = new Set<object>();
  // post-order without recursion: a container is pushed, then its children, and summed when met again
  const stack: object[] = [value];
  while (stack.length) {
    const node = stack[stack.length - 1]!;
    if (sizes.has(node)) {
      stack.pop();
      continue;
    }
    open.add(node);
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    let pending = false;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child === 'object' && child !== null && !sizes.has(child)) {
        if (isJsonataFunction(child)) {
          sizes.set(child, 2); // written as "" by $string, dropped from results: its closure is not data
          continue;
        }
        if (open.has(child)) return Infinity; // a cycle: never JSON (jsonata builds none)
        stack.push(child);
        pending = true;
      }
    }
    if (pending) continue;
    stack.pop();
    open.delete(node);
    let size = children.length + 1; // brackets and separators
    if (!Array.isArray(node)) for (const key of Object.keys(node)) size += key.length + 3;
    for (let i = 0; i < children.length && size <= budget; i++) {
      const child = children[i];
      size += typeof child === 'object' && child !== null ? sizes.get(child)! : leafSize(child);
    }
    if (size > budget) return size;
    sizes.set(node, size);
  }
  return sizes.get(value)!;
}
