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
 * answered like one 33 levels deep; visits every value once.
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
    if (Array.isArray(node.value)) {
      node.value.forEach((child, index) => {
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: node.depth + 1, parent: node, key: index });
      });
    } else {
      for (const key of Object.keys(node.value as object)) {
        const child = (node.value as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: node.depth + 1, parent: node, key });
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
 * long, valid JSON, an object, and within the depth limit, each checked
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
  return parsed as Record<string, unknown>;
}

function jsonPath(node: Node, field: string): string {
  const keys: (string | number)[] = [];
  for (let at: Node | null = node; at && at.key !== null; at = at.parent) keys.push(at.key);
  let path = field;
  for (const key of keys.reverse()) {
    if (typeof key === 'number') path = `${path || 'body'}[${key}]`;
    else path += (path ? '.' : '') + (key.length > KEY_SHOWN ? `${key.slice(0, KEY_SHOWN)}…` : key);
  }
  return path || 'body';
}
