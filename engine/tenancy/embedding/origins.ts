import type { FieldProblem } from '../../platform/errors/index.ts';

/** Hosts a browser may reach over plain http while a customer develops: the loopback names only. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An allowed origin as a browser sends it in `Origin`: scheme, host and port,
 * nothing else. Answers the normalised form (URL.origin: host lower-cased,
 * default port dropped), which is what a browser's `Origin` header holds, so
 * matching is plain string equality; or the problem naming the rule.
 */
export function parseOrigin(raw: string, field: string): { origin: string } | { problem: FieldProblem } {
  const fail = (rule: string, message: string) => ({ problem: { field, rule, message } });
  if (!URL.canParse(raw)) return fail('origin', 'must be an origin such as https://app.example.com (scheme, host and optional port)');
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('scheme', 'must start with https:// (or http:// for localhost)');
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash || raw.endsWith('/')) {
    return fail('origin', `must be an origin only (scheme, host and optional port), without a path, query or trailing slash: ${url.origin}`);
  }
  if (url.hostname.includes('*')) return fail('exact', 'must be an exact origin: wildcards are not allowed, list each origin');
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return fail('https', 'must use https:// (plain http:// is allowed for localhost, 127.0.0.1 and [::1] only)');
  }
  return { origin: url.origin };
}

/** The origin of an absolute URL as a browser would send it, or null when it has none (not http(s)). */
export function originOf(url: string): string | null {
  if (!URL.canParse(url)) return null;
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : null;
}
