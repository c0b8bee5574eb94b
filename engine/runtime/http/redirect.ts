/** One request as sent on the wire: what a redirect turns into the next one. */
export interface Hop {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ALWAYS_CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie'];

/**
 * The request a redirect asks for, or null when the response is not one to
 * follow (not 301/302/303/307/308, or no Location). 303, and 301/302 after a
 * POST, become a GET without a body (as browsers and fetch do); 307 and 308
 * repeat the method and body. When the new URL is on another origin
 * (scheme, host or port differs), credentials do not follow: Authorization,
 * Proxy-Authorization, Cookie and the caller's `credentialHeaders` are dropped.
 */
export function redirectHop(current: Hop, status: number, location: string | undefined, credentialHeaders: string[] = []): Hop | null {
  if (!REDIRECT_STATUSES.has(status) || !location) return null;
  let url: URL;
  try {
    url = new URL(location, current.url);
  } catch {
    return null;
  }
  const headers = { ...current.headers };
  let { method, body } = current;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    delete headers['content-type'];
    delete headers['content-length'];
  }
  if (url.origin !== current.url.origin) {
    for (const name of [...ALWAYS_CREDENTIALS, ...credentialHeaders.map((h) => h.toLowerCase())]) delete headers[name];
  }
  delete headers.host;
  return { method, url, headers, body };
}
