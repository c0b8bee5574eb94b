import type { FieldProblem } from '../../platform/errors/index.ts';
import { sentName, type ArgumentNode } from './argument-tree.ts';
import { headerText } from './host-variables.ts';
import { define, setPath } from './json-path.ts';
import { problem } from './rules.ts';
import { asText } from './send-values.ts';

/** Where sent values have gone so far; one per build. */
export interface RequestParts {
  query: Record<string, string | string[]>;
  /** Path parameter values, not yet encoded, by :name. */
  params: Map<string, string>;
  body: Record<string, unknown>;
  /** Header arguments' values by header name as the definition writes it; checked, ready to send. */
  headers: Record<string, string>;
  /** Whether anything may go in the body: only actions (or APIs) with Body arguments, or a Body cursor, send one. */
  hasBody: boolean;
}

export function emptyParts(): RequestParts {
  return { query: {}, params: new Map(), body: {}, headers: {}, hasBody: false };
}

/**
 * Puts one top-level argument's sent value where its location says, under its
 * external key (else its key):
 *
 *   Query  ?per_page=50; multiple values without a delimiter repeat the parameter
 *          (?tag=a&tag=b); objects and arrays go as JSON text
 *   Param  replaces :name in the path, URL-encoded; multiple values without a
 *          delimiter are joined with commas
 *   Body   a JSON field; dots in the external key nest (metadata.source); an
 *          Object with asBody is the body itself: its fields at the top level
 *   Header a request header (Idempotency-Key: k-1); text, numbers and booleans
 *          as text; multiple values without a delimiter joined with ", " (one
 *          field, as HTTP combines repeated ones). A line break, another
 *          control character or an object is a `header` problem of `field`.
 */
export function place(node: ArgumentNode, sent: unknown, parts: RequestParts, problems: FieldProblem[], field: string): void {
  const name = sentName(node);
  switch (node.arg.location) {
    case 'Query':
      define(parts.query, name, node.arg.multipleValues && Array.isArray(sent) ? sent.map(asText) : asText(sent));
      break;
    case 'Param':
      parts.params.set(name, Array.isArray(sent) && node.arg.multipleValues ? sent.map(asText).join(',') : asText(sent));
      break;
    case 'Body':
      if (node.arg.asBody === true) placeAsBody(parts.body, sent);
      else setPath(parts.body, name.split('.'), sent);
      break;
    case 'Header': {
      const values = node.arg.multipleValues && Array.isArray(sent) ? sent : [sent];
      if (values.some((v) => v !== null && typeof v === 'object')) {
        problems.push(problem(field, 'header', `is sent in header ${name}, so it must be text, a number or a boolean (got an object or array)`));
        break;
      }
      const text = values.map(asText).join(', ');
      const checked = headerText(text);
      if (checked === null) problems.push(problem(field, 'header', `is sent in header ${name}, so it must not contain line breaks or other control characters`));
      else if (typeof checked !== 'string') problems.push(problem(field, 'header', `is sent in header ${name}, so it must be Latin-1 text (no character beyond U+00FF, such as typographic quotes or a euro sign)`));
      else {
        // An action argument, placed after the API's, replaces its header whatever the letter case.
        for (const other of Object.keys(parts.headers)) if (other.toLowerCase() === name.toLowerCase()) delete parts.headers[other];
        parts.headers[name] = text;
      }
      break;
    }
    default:
      // API and auth arguments without a location are host variables only.
      break;
  }
}

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;
/** Stands for a left-out last parameter until its slash is dropped (a character no filled segment can hold: values are percent-encoded). */
export const LEFT_OUT = '\u0000';

/**
 * The action path with every :name replaced by its URL-encoded value.
 * encodeURIComponent keeps a value inside its segment: a / or ? in it cannot
 * change which resource is addressed, and a value of . or .. (which URL
 * parsing would resolve, climbing the path) is refused. A parameter whose
 * argument says allowSlashes is split on / instead: each segment encoded,
 * joined by plain slashes, with empty, . and .. segments refused. Such a
 * parameter, when optional and left out, may end the path: the path then
 * ends before its `/:name` (a tree's root: /repos/o/r/contents); anywhere
 * else it needs a value like any other.
 */
export function fillPath(
  path: string,
  params: ReadonlyMap<string, string>,
  problems: FieldProblem[],
  keyOf: (name: string) => string,
  allowsSlashes: (name: string) => boolean = () => false,
): string {
  const filled = path.replace(PATH_PARAM, (whole, name: string, offset: number) => {
    const value = params.get(name);
    if (value === undefined && allowsSlashes(name) && offset + whole.length === path.length && path[offset - 1] === '/') return LEFT_OUT;
    if (value !== undefined) {
      const segments = allowsSlashes(name) ? value.split('/') : [value];
      if (segments.some((s) => s === '.' || s === '..')) {
        problems.push(problem(keyOf(name), 'pathSegment', 'has a . or .. segment, which would change the path it is sent in'));
      } else if (segments.length > 1 && segments.some((s) => s === '')) {
        problems.push(problem(keyOf(name), 'pathSegment', 'has an empty segment (a leading, trailing or doubled /), which would change the path it is sent in'));
      }
      return segments.map(encodeURIComponent).join('/');
    }
    // An argument already reported (missing, or a bad value) is not reported again for its segment.
    const key = keyOf(name);
    const reported = problems.some((p) => p.field === key || p.field.startsWith(`${key}[`) || p.field.startsWith(`${key}.`));
    if (!reported) problems.push(problem(key, 'required', `is a path parameter (:${name}), so it needs a value`));
    return whole;
  });
  return filled.endsWith(`/${LEFT_OUT}`) ? filled.slice(0, -LEFT_OUT.length - 1) : filled;
}

/** baseUrl + path without doubling or dropping the slash between them. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

/**
 * An asBody Object's fields become the body's own. A field a named Body
 * argument sets stays the named argument's, whichever is placed first (a
 * named one placed later overwrites through setPath).
 */
function placeAsBody(body: Record<string, unknown>, sent: unknown): void {
  if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) return;
  for (const [field, value] of Object.entries(sent)) if (!Object.hasOwn(body, field)) define(body, field, value);
}
