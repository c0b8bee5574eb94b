import type { ApiDefinition } from '../definitions/generated/definition-types.ts';

/** api.yaml's `proxy`, read: what the proxy may do with one version's API. */
export interface ProxyRules {
  /** false: `proxy: false`, every proxied call is 403 PROXY_DISABLED. */
  enabled: boolean;
  /** The path rules of `proxy.paths`, or null: any path under baseUrl. */
  paths: readonly string[] | null;
  /** `proxy.headers`, lower-cased: request headers a caller may forward besides the default ones. */
  headers: readonly string[];
}

const OPEN: ProxyRules = Object.freeze({ enabled: true, paths: null, headers: Object.freeze([]) as readonly string[] });
const CLOSED: ProxyRules = Object.freeze({ enabled: false, paths: null, headers: Object.freeze([]) as readonly string[] });

/**
 * The proxy's rules of an API, as api.yaml writes them:
 *
 *   (absent) or proxy: true    any path under baseUrl
 *   proxy: false               none
 *   proxy:
 *     paths: [/files/, /search]
 *     headers: [Idempotency-Key]
 */
export function proxyRulesOf(api: Pick<ApiDefinition, 'proxy'>): ProxyRules {
  const proxy = api.proxy;
  if (proxy === undefined || proxy === true) return OPEN;
  if (proxy === false) return CLOSED;
  return { enabled: true, paths: proxy.paths ?? null, headers: (proxy.headers ?? []).map((h) => h.toLowerCase()) };
}

/**
 * Whether `path` (as the app receives it, under baseUrl, with its leading
 * slash) is one a path rule allows: `/users` allows /users and anything
 * under it (/users/42) but not /users-admin; `/users/` anything under it;
 * `/conversations.*` any path that starts with /conversations. (a plain prefix).
 */
export function pathAllowed(rules: ProxyRules, path: string): boolean {
  if (rules.paths === null) return true;
  return rules.paths.some((rule) => {
    if (rule.endsWith('*')) return path.startsWith(rule.slice(0, -1));
    if (rule.endsWith('/')) return path.startsWith(rule);
    return path === rule || path.startsWith(`${rule}/`);
  });
}
