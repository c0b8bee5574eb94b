/**
 * One copy of each short string of the definitions a thread reads. A parser
 * makes a new string for every scalar it reads, so a catalogue of 30,000
 * actions held ~9,000 copies of "Query" per 3,300 files, ~700 bytes a file
 * of repeated values ("String", "GET", "open"). Property names need none of
 * this: V8 keeps one copy of each already.
 *
 * Bounded: a long-running gateway reloading edited definitions must not keep
 * every string it ever saw; when full, it starts again (strings already
 * shared stay shared).
 */
const SHORT = 64;
const MAX_STRINGS = 50_000;
let known = new Map<string, string>();

/** `value` with each short string replaced, in place, by the thread's one copy of it. */
export function shareStrings<T>(value: T): T {
  return share(value) as T;
}

function share(value: unknown): unknown {
  if (typeof value === 'string') return value.length > SHORT ? value : one(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = share(value[i]);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key in record) record[key] = share(record[key]);
  }
  return value;
}

function one(text: string): string {
  const copy = known.get(text);
  if (copy !== undefined) return copy;
  if (known.size >= MAX_STRINGS) known = new Map();
  known.set(text, text);
  return text;
}
