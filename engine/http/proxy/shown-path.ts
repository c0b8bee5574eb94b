/** In any letter case, as the router matches paths: /V2/Proxy/con_1/… is a proxied request too. */
const PROXIED = /^(\/v2\/(?:end-user\/)?proxy\/[^/]+\/).+$/i;

/**
 * A request's path as the request log and the traces show it. A proxied
 * request's path after the connection id is the caller's request to the app
 * (ids, names, e-mail addresses, even a token some APIs put in a path): it
 * is shown as `…`, as runs show no argument: `/v2/proxy/con_1/…`.
 */
export function shownPath(path: string): string {
  // Only a proxy path can match: the runs' paths (most requests, /v2/u… or /v1/…) skip the expression.
  const start = path.slice(0, 9).toLowerCase();
  return start === '/v2/proxy' || start === '/v2/end-u' ? path.replace(PROXIED, '$1…') : path;
}
