import { redactedHeaderName } from '../../platform/secrets/header-names.ts';
import { redactText } from '../../platform/secrets/redacting-stream.ts';

/** Hop-by-hop headers (RFC 9110 §7.6.1), and the older ones proxies still see: they describe one connection, never the message. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization'];

/** Never taken from a caller, whatever api.yaml lists: credentials, the target, framing, and the proxy's own options. */
const NEVER_FORWARDED = new Set([...HOP_BY_HOP, 'authorization', 'cookie', 'host', 'content-length', 'expect', 'x-proxy-retry']);

/** Forwarded from every caller: what the body is, what answer it wants, and the conditionals. */
const ALWAYS_FORWARDED = new Set(['accept', 'content-type', 'content-encoding']);

/**
 * Never passed back from the app: hop-by-hop headers, its cookies, the
 * framing the gateway sets itself, and what would speak for the gateway's
 * own origin rather than the app's (HSTS, Alt-Svc, CORS: the gateway's CORS
 * is its own; Clear-Site-Data, which would wipe the gateway origin's storage
 * in a browser, the API docs' key and the Connect page's state, and reload
 * its pages), and its request id (the gateway's X-Request-Id stands).
 */
const NEVER_RETURNED = new Set([
  ...HOP_BY_HOP,
  'set-cookie',
  'set-cookie2',
  'content-length',
  'strict-transport-security',
  'alt-svc',
  'clear-site-data',
  'x-request-id',
  'vary',
]);

/** What decides which caller headers go on. */
export interface HeaderRules {
  /** api.yaml's `proxy.headers`, lower-cased. */
  listed: readonly string[];
  /** api.yaml's `headers` as written (name → template): a caller may replace one whose value uses no {{placeholder}}. */
  apiHeaders: Readonly<Record<string, string>>;
  /**
   * The headers the API sends on every call, filled (its `headers` and its Header arguments, HostRequest.headers):
   * those filled from the connection are never a caller's, whatever `proxy.headers` lists.
   */
  hostHeaders: Readonly<Record<string, string>>;
  /** The headers the auth sets on the call (lower-cased): never a caller's. */
  authHeaders: readonly string[];
}

/**
 * The caller's headers that go on to the app: Accept, Content-Type,
 * Content-Encoding and the If-* conditionals; the headers api.yaml's
 * `proxy.headers` lists; and the API's own `headers` whose value is fixed
 * (an API version, say) — never Authorization, Cookie, Host, a hop-by-hop
 * header (or one the caller's Connection header names), framing, anything
 * the auth sets, or an API header filled from the connection (`{{tenant}}`,
 * a Header argument), even one `proxy.headers` lists. Names lower-cased; a header sent twice is joined
 * with ", " as HTTP combines it.
 */
export function forwardedRequestHeaders(given: Readonly<Record<string, string | string[] | undefined>>, rules: HeaderRules): Record<string, string> {
  const named = connectionNamed(given.connection);
  const sent = new Map(Object.entries(rules.hostHeaders).map(([name, value]) => [name.toLowerCase(), value]));
  // api.yaml's headers sent with the fixed value it writes; one with a {{placeholder}}, or replaced by a Header argument, is the connection's.
  const fixedApiHeaders = new Set(
    Object.entries(rules.apiHeaders)
      .filter(([name, value]) => !value.includes('{{') && sent.get(name.toLowerCase()) === value)
      .map(([name]) => name.toLowerCase()),
  );
  const fromConnection = new Set([...sent.keys()].filter((name) => !fixedApiHeaders.has(name)));
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (NEVER_FORWARDED.has(lower) || named.has(lower) || rules.authHeaders.includes(lower) || fromConnection.has(lower)) continue;
    if (ALWAYS_FORWARDED.has(lower) || lower.startsWith('if-') || rules.listed.includes(lower) || fixedApiHeaders.has(lower)) {
      forwarded[lower] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return forwarded;
}

/**
 * The app's headers as the caller gets them: as they came, less the ones
 * never returned (above, and any its Connection header names), less
 * Content-Encoding when the gateway decoded the body, less any whose name
 * holds one of the connection's secrets (`forms`, redactionForms) in any
 * letter case; each value with them redacted. Such a header is left out, not
 * renamed: `[redacted]` cannot be in an HTTP header name, and a name the app
 * never sent would be made up; its name would also be listed to a page in
 * Access-Control-Expose-Headers. The MCP request tool shows these headers too.
 */
export function returnedResponseHeaders(given: Readonly<Record<string, string>>, options: { decoded: boolean; forms: readonly string[] }): Record<string, string> {
  const named = connectionNamed(given.connection);
  const returned: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (NEVER_RETURNED.has(name) || named.has(name) || name.startsWith('access-control-')) continue;
    if (name === 'content-encoding' && options.decoded) continue;
    if (redactedHeaderName(name, options.forms) !== null) continue;
    returned[name] = redactText(value, options.forms);
  }
  return returned;
}

/** The header names a Connection header lists (they are hop-by-hop too). */
function connectionNamed(value: string | string[] | undefined): Set<string> {
  if (value === undefined) return new Set();
  return new Set((Array.isArray(value) ? value.join(',') : value).split(',').map((name) => name.trim().toLowerCase()).filter(Boolean));
}
