const PROXIED = /^(\/v2\/(?:end-user\/)?proxy\/[^/]+\/).+$/;

/**
 * A request's path as the request log and the traces show it. A proxied
 * request's path after the connection id is the caller's request to the app
 * (ids, names, e-mail addresses, even a token some APIs put in a path): it
 * is shown as `…`, as runs show no argument: `/v2/proxy/con_1/…`.
 */
export function shownPath(path: string): string {
  // Only a proxy path can match: the runs' paths (most requests) skip the expression.
  return path.startsWith('/v2/proxy/') || path.startsWith('/v2/end-user/proxy/') ? path.replace(PROXIED, '$1…') : path;
}
