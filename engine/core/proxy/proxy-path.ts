import { validationError } from '../../platform/errors/index.ts';

/** The rules a proxied path is held to, each named in the 400 that refuses it. */
export const PATH_RULES = {
  'control-character': 'must not contain control characters, raw or percent-encoded (%00-%1F, %7F)',
  backslash: 'must not contain a backslash, raw or percent-encoded (%5C): some servers read it as /',
  'dot-segment': 'must not contain a . or .. segment, raw or percent-encoded (%2e), nor one with a ;parameter (..;x, which Tomcat and Spring read as ..): it would climb above the base path',
  'encoded-slash': 'must not hide a . or .. segment behind an encoded slash (%2F): it would climb above the base path on a server that decodes it',
  'double-encoding': 'must not percent-encode a percent sign before ., /, \\, : or @ (%252e, %252f, ...): a server that decodes twice would climb or change host',
  'empty-segment': 'must not contain an empty segment (//): a leading // names another host',
  scheme: 'must not start with a scheme (http:, javascript:, ...): only a path under the base URL can be proxied',
  'at-sign': 'must not have @ in its first segment: user@host names another host',
  'percent-encoding': 'must percent-encode with two hexadecimal digits after every %',
  origin: "must stay under the app's base URL",
} as const;

export type PathRule = keyof typeof PATH_RULES;

/** Where a proxied request goes, once its path passed the rules. */
export interface ProxyTarget {
  /** The absolute URL: the base URL, the path, the caller's query (less the parameters the gateway sets). */
  url: string;
  /** The path under the base URL as the app receives it (percent-encoded, with its leading slash): what api.yaml's proxy.paths are matched against. */
  path: string;
}

const CONTROL = /[\u0000-\u001f\u007f]|%(?:[01][0-9a-f]|7f)/i;
const BACKSLASH = /\\|%5c/i;
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
/** A dot segment with a path parameter (`..;jsessionid=1`): servlet containers drop the parameter and climb. */
const DOT_WITH_PARAMETER = /^(?:\.|%2e){1,2}(?:;|%3b)/i;
const DOUBLE_ENCODED = /%25(?:2e|2f|5c|3a|40|[01][0-9a-f]|7f)/i;
const BAD_PERCENT = /%(?![0-9a-f]{2})/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The first rule `raw` (the path after /v2/proxy/{connectionId}/, as sent) breaks, or null. */
export function brokenPathRule(raw: string): PathRule | null {
  if (CONTROL.test(raw)) return 'control-character';
  if (BACKSLASH.test(raw)) return 'backslash';
  if (BAD_PERCENT.test(raw)) return 'percent-encoding';
  if (DOUBLE_ENCODED.test(raw)) return 'double-encoding';
  const segments = raw.split('/');
  if (segments.some((segment) => DOT_SEGMENT.test(segment) || DOT_WITH_PARAMETER.test(segment))) return 'dot-segment';
  // A trailing slash (an empty last segment) is a path of its own; an empty one elsewhere is //.
  if (segments.slice(0, -1).some((segment) => segment === '')) return 'empty-segment';
  if (segments.some((segment) => segment.split(/%2f/i).some((part) => DOT_SEGMENT.test(part)))) return 'encoded-slash';
  const first = decoded(segments[0]!);
  if (SCHEME.test(first)) return 'scheme';
  if (first.includes('@')) return 'at-sign';
  return null;
}

/** A segment percent-decoded; as it is when its escapes are not UTF-8 (%ff), which decodes to nothing a rule looks for. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The URL a proxied request goes to: `raw` (the path after
 * /v2/proxy/{connectionId}/, percent-encoded as the caller sent it) under
 * `baseUrl` (filled from the connection, no trailing slash), with the
 * caller's query string as it came, less any parameter named in `reserved`
 * (the auth's and the API's own, which the gateway sets). A path that could
 * leave the app's origin or climb above the base path is VALIDATION_ERROR,
 * field `path`, naming the rule; and whatever the rules let through, a URL
 * that does not stay under the base URL once parsed is refused too (rule
 * `origin`), so nothing reaches another host.
 */
export function proxyTarget(baseUrl: string, raw: string, query: string, reserved: ReadonlySet<string>): ProxyTarget {
  const broken = brokenPathRule(raw);
  if (broken) throw refused(broken);
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const kept = withoutReserved(query, reserved);
  const url = new URL(`${baseUrl}/${raw}${kept ? `?${kept}` : ''}`);
  if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`) || url.username !== '' || url.password !== '') throw refused('origin');
  return { url: url.href, path: url.pathname.slice(basePath.length) };
}

/**
 * Whether a redirect to `url` stays within what a caller's own path could
 * reach: another origin (where the credentials are dropped), or the base
 * URL's origin under its base path, by a path that breaks no rule and that
 * `allowed` (api.yaml's proxy.paths, given the path under the base URL)
 * admits. An app's redirect back into itself elsewhere (an open redirect,
 * `?next=/admin`) is not followed with the connection's credentials.
 */
export function redirectWithin(baseUrl: string, url: URL, allowed: (path: string) => boolean): boolean {
  const base = new URL(baseUrl);
  if (url.origin !== base.origin) return true;
  const basePath = base.pathname.replace(/\/+$/, '');
  // The base URL itself, without its trailing slash, is the caller's `/`.
  if (url.pathname === basePath) return allowed('/');
  if (!url.pathname.startsWith(`${basePath}/`)) return false;
  const path = url.pathname.slice(basePath.length);
  return brokenPathRule(path.slice(1)) === null && allowed(path);
}

/** The 400 refusing a path: VALIDATION_ERROR, field `path`, naming the rule. */
export function refused(rule: PathRule) {
  return validationError([{ field: 'path', rule, message: PATH_RULES[rule] }]);
}

/** The query string less the parameters named in `reserved` (compared decoded), the rest exactly as written. */
function withoutReserved(query: string, reserved: ReadonlySet<string>): string {
  if (query === '' || reserved.size === 0) return query;
  return query
    .split('&')
    .filter((pair) => {
      const name = pair.split('=', 1)[0]!;
      return !reserved.has(decoded(name.replace(/\+/g, ' ')));
    })
    .join('&');
}
