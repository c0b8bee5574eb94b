import type { FieldProblem } from '../../platform/errors/index.ts';
import { fillTemplate } from './host-variables.ts';
import { problem } from './rules.ts';

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const LEADING_PLACEHOLDER = /^\{\{\s*([^{}\s]+)\s*\}\}/;
const SCHEME_AND_SLASHES = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const HOST_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export type UrlPart = 'origin' | 'scheme' | 'authority' | 'path' | 'query' | 'fragment';

export interface UrlTemplateOptions {
  /**
   * Variables the definition declares as standing for a whole origin
   * (`originVariables`): only these may open a template (`{{name}}/path`),
   * and their value must be an http(s) origin. The egress policy checks
   * where it leads, like any destination.
   */
  originVariables?: readonly string[];
}

/**
 * Which part of the URL each placeholder of a template is in, decided on the
 * template (placeholders blanked, so nothing a value holds can move a
 * boundary): a whole origin (`{{x}}/path`), the scheme, the authority, the
 * path, the query or the fragment.
 */
export function urlTemplateParts(template: string): {
  leading: string | null;
  /** Where the authority (user info, host, port) is in the template; null for a whole-origin template. */
  authority: { start: number; end: number } | null;
  partAt(offset: number): UrlPart;
} {
  const blank = template.replace(PLACEHOLDER, (whole) => 'a'.repeat(whole.length));
  const leading = LEADING_PLACEHOLDER.exec(template);
  let authorityStart = 0;
  let pathStart = 0;
  if (leading) {
    pathStart = leading[0].length;
  } else {
    const scheme = SCHEME_AND_SLASHES.exec(blank);
    if (scheme) {
      authorityStart = scheme[0].length;
      const end = blank.slice(authorityStart).search(/[/?#]/);
      pathStart = end === -1 ? blank.length : authorityStart + end;
    }
  }
  const find = (char: string, from: number) => {
    const at = blank.indexOf(char, from);
    return at === -1 ? Infinity : at;
  };
  const fragmentStart = find('#', pathStart);
  const queryStart = Math.min(find('?', pathStart), fragmentStart);
  return {
    leading: leading ? leading[1]! : null,
    authority: leading || authorityStart === 0 ? null : { start: authorityStart, end: pathStart },
    partAt(offset) {
      if (leading && offset === 0) return 'origin';
      if (offset < authorityStart) return 'scheme';
      if (offset < pathStart) return 'authority';
      if (offset < queryStart) return 'path';
      if (offset < fragmentStart) return 'query';
      return 'fragment';
    },
  };
}

/**
 * Fills the {{name}} placeholders of a URL template (a base URL, an OAuth
 * URL, a credential-exchange URL), each encoded for the part it is in, so
 * no value can change another part: in the host, one DNS label (letters,
 * digits, inner hyphens: no dot, colon, slash or @); in the path, one
 * segment (percent-encoded; `.` and `..` refused); in the query and the
 * fragment, one value (percent-encoded). A template that opens with a
 * placeholder takes a whole origin from it, only for a declared origin
 * variable. Every refusal is a problem naming the variable, never its value.
 */
export function fillUrlTemplate(
  template: string,
  variables: Readonly<Record<string, string>>,
  where: string,
  problems: FieldProblem[],
  options: UrlTemplateOptions = {},
): string {
  const parts = urlTemplateParts(template);
  if (parts.leading !== null && !(options.originVariables ?? []).includes(parts.leading)) {
    const name = parts.leading;
    problems.push(problem(name.startsWith('metadata.') ? name : `connection.${name}`, 'hostVariable', `${where} cannot use {{${name}}} as its origin: it is not declared in originVariables`));
    return template;
  }
  return fillTemplate(template, variables, where, problems, (value, offset) => encodeFor(parts.partAt(offset), value));
}

export function encodeFor(part: UrlPart, value: string): string | { refused: string } {
  switch (part) {
    case 'origin':
      return originOf(value) ?? { refused: 'its value is not an origin (http:// or https://, a host and an optional port, nothing else)' };
    case 'authority':
      return HOST_LABEL.test(value) ? value : { refused: 'its value is not one host label (letters, digits and inner hyphens, up to 63)' };
    case 'scheme':
      return { refused: 'a URL scheme cannot come from a variable' };
    case 'path':
      // "." and ".." (also as %2E, which URL parsing reads as a dot) would climb the path once resolved.
      if (value === '.' || value === '..') return { refused: 'its value is a dot segment (. or ..), which would change the path' };
      // Behind slashes, which are encoded (%2F), they climb only on a server that decodes %2F: refused as the proxy refuses a caller's.
      if (value.split(/[\\/]/).some((segment) => segment === '.' || segment === '..')) {
        return { refused: 'its value holds a dot segment (. or ..) between slashes, which would change the path on a server that decodes %2F' };
      }
      return encodeURIComponent(value);
    default:
      return encodeURIComponent(value);
  }
}

function originOf(value: string): string | null {
  if (value !== value.trim() || !URL.canParse(value)) return null;
  const url = new URL(value);
  const bare = (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash;
  return bare && !value.includes('?') && !value.includes('#') ? url.origin : null;
}
