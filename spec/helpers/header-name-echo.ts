import type { Upstream } from './upstream.ts';

/** An HTTP header name (RFC 9110 token): what an app can write a credential into as it is. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Answers `route` with the X-Api-Key it received written back in header NAMES, as an app echoing its request
 * (or a hostile one) may: `X-Echo-<key>` when the key can be a header name as it is, `X-Pct-<key percent-encoded>`
 * always, each with the value `1`, and an ordinary `X-Plain: kept` beside them. The gateway's HTTP client reads
 * header names in lower case: a key with capitals arrives lower-cased.
 */
export function echoKeyInHeaderNames(upstream: Upstream, route: string, status = 401): void {
  upstream.on(route, (request) => {
    const key = String(request.headers['x-api-key'] ?? '');
    const headers: Record<string, string> = { 'X-Plain': 'kept', [`X-Pct-${encodeURIComponent(key)}`]: '1' };
    if (TOKEN.test(key)) headers[`X-Echo-${key}`] = '1';
    return { status, headers, body: { error: 'bad key' } };
  });
}
