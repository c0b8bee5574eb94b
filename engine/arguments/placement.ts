import type { FieldProblem } from '../errors/index.ts';
import { sentName, type ArgumentNode } from './argument-tree.ts';
import { define, setPath } from './json-path.ts';
import { problem } from './rules.ts';
import { asText } from './send-values.ts';

/** Where sent values have gone so far; one per build. */
export interface RequestParts {
  query: Record<string, string | string[]>;
  /** Path parameter values, not yet encoded, by :name. */
  params: Map<string, string>;
  body: Record<string, unknown>;
  /** Whether anything may go in the body: only actions (or APIs) with Body arguments, or a Body cursor, send one. */
  hasBody: boolean;
}

export function emptyParts(): RequestParts {
  return { query: {}, params: new Map(), body: {}, hasBody: false };
}

/**
 * Puts one top-level argument's sent value where its location says, under its
 * external key (else its key):
 *
 *   Query  ?per_page=50; multiple values without a delimiter repeat the parameter
 *          (?tag=a&tag=b); objects and arrays go as JSON text
 *   Param  replaces :name in the path, URL-encoded; multiple values without a
 *          delimiter are joined with commas
 *   Body   a JSON field; dots in the external key nest (metadata.source)
 */
export function place(node: ArgumentNode, sent: unknown, parts: RequestParts): void {
  const name = sentName(node);
  switch (node.arg.location) {
    case 'Query':
      define(parts.query, name, node.arg.multipleValues && Array.isArray(sent) ? sent.map(asText) : asText(sent));
      break;
    case 'Param':
      parts.params.set(name, Array.isArray(sent) && node.arg.multipleValues ? sent.map(asText).join(',') : asText(sent));
      break;
    case 'Body':
      setPath(parts.body, name.split('.'), sent);
      break;
    default:
      // API and auth arguments without a location are host variables only.
      break;
  }
}

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The action path with every :name replaced by its URL-encoded value.
 * encodeURIComponent keeps a value inside its segment: a / or ? in it cannot
 * change which resource is addressed.
 */
export function fillPath(path: string, params: ReadonlyMap<string, string>, problems: FieldProblem[], keyOf: (name: string) => string): string {
  return path.replace(PATH_PARAM, (whole, name: string) => {
    const value = params.get(name);
    if (value !== undefined) return encodeURIComponent(value);
    // An argument already reported (missing, or a bad value) is not reported again for its segment.
    const key = keyOf(name);
    const reported = problems.some((p) => p.field === key || p.field.startsWith(`${key}[`) || p.field.startsWith(`${key}.`));
    if (!reported) problems.push(problem(key, 'required', `is a path parameter (:${name}), so it needs a value`));
    return whole;
  });
}

/** baseUrl + path without doubling or dropping the slash between them. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}
