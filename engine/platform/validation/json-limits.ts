import bourne from '@hapi/bourne';
import { validationError } from '../errors/index.ts';

/**
 * The limits every JSON the gateway accepts is held to, checked before
 * anything else touches it: request bodies (right after parsing), and JSON
 * carried in a query parameter (the connect authorize `metadata`).
 *
 * Depth counts objects and arrays: `{"a":[1]}` is 2 levels deep. 32 is
 * deeper than any document an integration sends, and keeps every recursive
 * walk over stored data (JSON.stringify, deep copies, the stores' own key
 * checks) far from the stack limit.
 */
export const JSON_MAX_DEPTH = 32;
/** Host variables (metadata) of end users, connections, installations and authorizations, as JSON. */
export const METADATA_MAX_BYTES = 16 * 1024;
/** The credentials given for a connection, as JSON: room for long OAuth tokens. */
export const CREDENTIALS_MAX_BYTES = 64 * 1024;

/** Path segments of a key longer than this are clipped in messages. */
const KEY_SHOWN = 64;

interface Node {
  value: unknown;
  depth: number;
  parent: Node | null;
  key: string | number | null;
}

/**
 * Throws 400 VALIDATION_ERROR (rule `maxDepth`) naming the first object or
 * array nested deeper than `maxDepth`, by its JSON path (`metadata.d[0][0]`)
 * under `field` (the parameter's name, or '' for a request body). Walks with
 * its own stack, never the call stack, so a body 100,000 levels deep is
 * answered like one 33 levels deep; visits every value once, in document
 * order (the first container too deep is the one named).
 */
export function checkJsonDepth(value: unknown, field: string, maxDepth = JSON_MAX_DEPTH): void {
  if (value === null || typeof value !== 'object') return;
  const stack: Node[] = [{ value, depth: 1, parent: null, key: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth > maxDepth) {
      const at = jsonPath(node, field);
      throw validationError([
        { field: at, rule: 'maxDepth', message: `is nested too deep: JSON may nest objects and arrays at most ${maxDepth} levels` },
      ]);
    }
    // Children pushed last first, so they are visited in document order: the first container too deep is named.
    if (Array.isArray(node.value)) {
      for (let index = node.value.length - 1; index >= 0; index--) {
        const child: unknown = node.value[index];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: node.depth + 1, parent: node, key: index });
      }
    } else {
      const keys = Object.keys(node.value as object);
      for (let i = keys.length - 1; i >= 0; i--) {
        const child = (node.value as Record<string, unknown>)[keys[i]!];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: node.depth + 1, parent: node, key: keys[i]! });
      }
    }
  }
}

/** Throws 400 VALIDATION_ERROR (rule `maxBytes`) when `value` is longer than `maxBytes` as JSON. Call after checkJsonDepth. */
export function checkJsonSize(value: unknown, field: string, maxBytes: number): void {
  if (value === undefined) return;
  if (Buffer.byteLength(JSON.stringify(value)) > maxBytes) {
    throw validationError([{ field, rule: 'maxBytes', message: `must be at most ${maxBytes} bytes as JSON` }]);
  }
}

/**
 * A JSON object given as text in a query parameter: at most `maxBytes`
 * long, valid JSON, an object, within the depth limit, without a
 * `__proto__` member, and without a string or key that is not well-formed
 * Unicode or a number too large to hold (as a request body), each checked
 * before the next. `shape` completes "must be a JSON object …" in the message.
 */
export function parseJsonParameter(raw: string, field: string, maxBytes: number, shape: string): Record<string, unknown> {
  if (Buffer.byteLength(raw) > maxBytes) {
    throw validationError([{ field, rule: 'maxBytes', message: `must be at most ${maxBytes} bytes of JSON` }]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationError([{ field, rule: 'json', message: `must be a JSON object ${shape}` }]);
  }
  checkJsonDepth(parsed, field);
  try {
    bourne.scan(parsed, { protoAction: 'error' });
  } catch {
    // As a request body's: a member that would set the prototype of an object it is copied into.
    throw validationError([{ field, rule: 'json', message: 'has a member named "__proto__", which no JSON the gateway takes may hold (it would set an object\'s prototype): rename or remove it' }]);
  }
  // As a request body's: a lone surrogate (`{"a":"\ud800"}`) or a number too large to hold, named by its path.
  checkJsonValues(raw, parsed, field);
  return parsed as Record<string, unknown>;
}

/** An exponent of three digits or more, or 309 digits in a row: where a number too large for a double may be. */
const MAYBE_TOO_LARGE = /[eE]\+?\d{3}|\d{309}/;
/**
 * A `\u` escape of a surrogate (U+D800–U+DFFF, in either case): where a string that is not well-formed Unicode may be.
 * JSON text decoded from UTF-8 (a body, a query parameter) holds none of its own: bytes that are not UTF-8, an encoded
 * surrogate among them, become U+FFFD as they are decoded. Only an escape makes one, alone or as half of a pair.
 */
const MAYBE_LONE_SURROGATE = /\\u[dD][89a-fA-F]/;
const TOO_LARGE = 'is a number too large to hold (beyond ±1.7976931348623157e308)';

/**
 * What JSON.parse makes of valid JSON that no handler or store may be given, refused naming where it is
 * (`metadata.big`, `items[2].price`, under `field`, the parameter's name or '' for a request body), in document order:
 * - a number beyond a double's range, which parses to ±Infinity and JSON.stringify writes as null (stored or sent
 *   on, it would be null without a word): rule `range`;
 * - a string, or an object's key, that is not well-formed Unicode (a lone surrogate, `"\ud800"`), which PostgreSQL's
 *   jsonb refuses (a 500), text columns store as U+FFFD (`"\ud800a"` and `"\udbffa"` one external id), and UTF-8
 *   cannot carry on: rule `wellFormed`.
 * `text` is the JSON `value` was parsed from: the value is walked only when the text holds what the walk looks for,
 * so most JSON costs two regular-expression scans and no walk.
 */
export function checkJsonValues(text: string, value: unknown, field: string): void {
  const numbers = MAYBE_TOO_LARGE.test(text);
  const strings = MAYBE_LONE_SURROGATE.test(text);
  if (!numbers && !strings) return;
  // [value, its path, the key it is held under when that key is to be checked]
  const pending: [unknown, string, string | null][] = [[value, field, null]];
  while (pending.length) {
    const [at, path, key] = pending.pop()!;
    if (key !== null && !key.isWellFormed()) {
      throw validationError([{ field: path, rule: 'wellFormed', message: `must be a key of well-formed Unicode text (a lone surrogate ${escapeLoneSurrogate(key)} is not)` }]);
    }
    if (typeof at === 'string') {
      if (strings && !at.isWellFormed()) throw validationError([{ field: path, rule: 'wellFormed', message: `must be well-formed Unicode text (a lone surrogate ${escapeLoneSurrogate(at)} is not)` }]);
    } else if (typeof at === 'number') {
      if (!Number.isFinite(at)) throw validationError([{ field: path, rule: 'range', message: TOO_LARGE }]);
    } else if (Array.isArray(at)) {
      for (let i = at.length - 1; i >= 0; i--) pending.push([at[i], `${path}[${i}]`, null]);
    } else if (at !== null && typeof at === 'object') {
      const keys = Object.keys(at);
      for (let i = keys.length - 1; i >= 0; i--) {
        const name = keys[i]!;
        pending.push([(at as Record<string, unknown>)[name], path === '' ? shownKey(name) : `${path}.${shownKey(name)}`, strings ? name : null]);
      }
    }
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A key as a path shows it: a lone surrogate written as its escape (`\ud800`), so the answer is well-formed text too. */
function shownKey(key: string): string {
  return key.isWellFormed() ? key : key.replace(LONE_SURROGATE, (s) => `\\u${s.charCodeAt(0).toString(16)}`);
}

/** The first lone surrogate of `text`, as its escape: `\ud800`. */
function escapeLoneSurrogate(text: string): string {
  LONE_SURROGATE.lastIndex = 0;
  const found = LONE_SURROGATE.exec(text);
  LONE_SURROGATE.lastIndex = 0;
  return found ? `\\u${found[0].charCodeAt(0).toString(16)}` : '';
}

function jsonPath(node: Node, field: string): string {
  const keys: (string | number)[] = [];
  for (let at: Node | null = node; at && at.key !== null; at = at.parent) keys.push(at.key);
  return formatPath(keys.reverse(), field);
}

/** `metadata.d[0][0]` under `field` ('' for a request body, shown as `body` where a path starts with an index). */
function formatPath(keys: readonly (string | number)[], field: string): string {
  let path = field;
  for (const key of keys) {
    if (typeof key === 'number') path = `${path || 'body'}[${key}]`;
    else path += (path ? '.' : '') + (key.length > KEY_SHOWN ? `${key.slice(0, KEY_SHOWN)}…` : key);
  }
  return path || 'body';
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * The depth check of checkJsonDepth, on JSON text before it is parsed: one
 * pass over the characters, so a 1 MiB body of nested arrays costs ~10 ms
 * here instead of ~0.5 s of JSON.parse (which builds every level first).
 * Throws the same 400 VALIDATION_ERROR (rule `maxDepth`, the JSON path of
 * the first container too deep) for valid JSON; text that is not valid JSON
 * is left to the parser, which refuses it.
 */
export function checkJsonTextDepth(text: string, field: string, maxDepth = JSON_MAX_DEPTH): void {
  // Per open container: the key (as quoted in the text: decoded only for an error's path) or index of the value being read in it.
  const keys: (string | number | null)[] = [];
  let expectKey = false;
  let lastString = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      if (expectKey) lastString = text.slice(start, i + 1);
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (keys.length >= maxDepth) {
        const path = formatPath(keys.map((key) => (typeof key === 'string' ? keyText(key) : (key ?? ''))), field);
        throw validationError([{ field: path, rule: 'maxDepth', message: `is nested too deep: JSON may nest objects and arrays at most ${maxDepth} levels` }]);
      }
      keys.push(c === OPEN_ARRAY ? 0 : null);
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      keys.pop();
      expectKey = false;
    } else if (c === COLON && expectKey) {
      keys[keys.length - 1] = lastString;
      expectKey = false;
    } else if (c === COMMA && keys.length > 0) {
      const top = keys[keys.length - 1];
      if (typeof top === 'number') keys[keys.length - 1] = top + 1;
      else expectKey = true;
    }
  }
}

function keyText(quoted: string): string {
  try {
    const key: unknown = JSON.parse(quoted);
    return typeof key === 'string' ? key : '';
  } catch {
    return '';
  }
}

/** Whether `value` nests objects and arrays more than `maxDepth` levels: walked with a stack of its own, stopping at the first container too deep. */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** Whether JSON text nests objects and arrays more than `maxDepth` levels (brackets inside strings not counted). */
export function textNestedDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}
