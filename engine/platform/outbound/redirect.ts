import { GatewayError, type KnownErrorCode } from '../errors/index.ts';

/** One request as sent on the wire: what a redirect turns into the next one. */
export interface Hop {
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** A string (client.ts), or bytes held to be sent again (stream.ts). */
  body: string | Buffer | undefined;
}

/**
 * What one call does with a redirect to another origin (scheme, host or
 * port differs); redirects within the origin are always followed as asked.
 *
 * - `refuse`: the call carries credentials in its very request (a token,
 *   refresh or revoke call, a signed credential exchange), so it follows no
 *   redirect off its origin: the call fails with `code`, naming `endpoint`
 *   and the origin it was sent to, and nothing is sent there.
 * - `strip` (the default): an app call; the hop goes on without
 *   Authorization, Proxy-Authorization, Cookie, the `credentialHeaders`, the
 *   `credentialQuery` parameters, any header or query parameter whose value
 *   holds one of the `secrets`, and a body that holds one.
 */
export type RedirectPolicy =
  | { crossOrigin: 'refuse'; endpoint: string; code: KnownErrorCode }
  | { crossOrigin: 'strip'; credentialHeaders?: readonly string[]; credentialQuery?: readonly string[]; secrets?: readonly string[] };

export const STRIP_CREDENTIALS: RedirectPolicy = { crossOrigin: 'strip' };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ALWAYS_CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie'];

/**
 * The request a redirect asks for, or null when the response is not one to
 * follow (not 301/302/303/307/308, or no Location). 303, and 301/302 after a
 * POST, become a GET without a body (as browsers and fetch do); 307 and 308
 * repeat the method and body. A hop to another origin follows the call's
 * policy (above).
 */
export function redirectHop(current: Hop, status: number, location: string | undefined, policy: RedirectPolicy = STRIP_CREDENTIALS): Hop | null {
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
  delete headers.host;
  if (url.origin === current.url.origin) return { method, url, headers, body };

  if (policy.crossOrigin === 'refuse') {
    throw GatewayError.of(
      policy.code,
      `${policy.endpoint} ${current.url.host} redirected to another origin (${url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol}); the redirect was not followed, so nothing was sent there`,
      { host: current.url.host, redirectedTo: url.origin },
    );
  }
  const secrets = (policy.secrets ?? []).filter((s) => s.length > 0);
  const holdsSecret = (text: string | Buffer) => secrets.some((secret) => text.includes(secret));
  for (const name of [...ALWAYS_CREDENTIALS, ...(policy.credentialHeaders ?? []).map((h) => h.toLowerCase())]) delete headers[name];
  for (const [name, value] of Object.entries(headers)) if (holdsSecret(value)) delete headers[name];
  const dropQuery = new Set(policy.credentialQuery ?? []);
  for (const [name, value] of [...url.searchParams]) if (dropQuery.has(name) || holdsSecret(value)) url.searchParams.delete(name);
  if (body !== undefined && (holdsSecret(body) || holdsSecret(safeDecode(typeof body === 'string' ? body : body.toString('latin1'))))) {
    body = undefined;
    delete headers['content-type'];
  }
  return { method, url, headers, body };
}

/** A form body holds a secret percent-encoded; look at it decoded too. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
