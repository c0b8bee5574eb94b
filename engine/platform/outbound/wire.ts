import { validationError, type FieldProblem } from '../errors/index.ts';
import { EgressDeniedError } from '../egress/egress-denied.ts';
import type { EgressPolicy } from '../egress/policy.ts';

/**
 * What both ways of sending (client.ts: a whole body read; stream.ts: bodies
 * streamed) do to every hop alike: the headers as sent, the request target,
 * the destination checked, the answer's headers read.
 */

/** Set by the client for each hop, never taken from a definition: the Host comes from the URL, framing from the body. */
const CONNECTION_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length']);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const LINE_BREAK_OR_NUL = /[\r\n\0]/;

/** A character HTTP/1.1 cannot send in a header value (undici refuses the request). */
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * The request's headers as sent: names lower-cased (a later duplicate by
 * case wins), values as strings, the connection headers left out. A header
 * value with a line break or NUL, or a character beyond Latin-1 (an argument placed in a header, say) would
 * be refused by undici as an internal error; it is the request's fault, so
 * it is a VALIDATION_ERROR naming the header, never its value.
 */
export function requestHeaders(given: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given === undefined) return headers;
  for (const name in given) {
    const lower = name.toLowerCase();
    if (!CONNECTION_HEADERS.has(lower)) headers[lower] = String(given[name]);
  }
  let problems: FieldProblem[] | null = null;
  for (const name in headers) {
    if (!TOKEN.test(name)) {
      (problems ??= []).push({ field: 'headers', rule: 'header-name', message: 'a header name is not a valid HTTP token' });
    } else if (LINE_BREAK_OR_NUL.test(headers[name]!)) {
      (problems ??= []).push({ field: `headers.${name}`, rule: 'header-value', message: 'must not contain line breaks or NUL characters' });
    } else if (BEYOND_LATIN1.test(headers[name]!)) {
      (problems ??= []).push({ field: `headers.${name}`, rule: 'header-value', message: 'must be Latin-1 text: HTTP cannot send a character beyond U+00FF (typographic quotes or a euro sign, say)' });
    }
  }
  if (problems !== null) throw validationError(problems);
  return headers;
}

/** The request target undici sends: the path and the query, never the fragment. */
export function pathOf(url: URL): string {
  const search = url.search;
  return search ? url.pathname + search : url.pathname;
}

export function checkDestination(url: URL, policy: EgressPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressDeniedError(url.host, '', 'not http(s)', `${url.protocol} URLs are not allowed (${url.host || 'no host'}); only http: and https:`);
  }
  const denied = policy.checkHost(url.hostname);
  if (denied) throw denied;
}

/** undici's response headers (lower-case names already), repeated ones joined with ", ", in place. */
export function flattenHeaders(headers: Record<string, string | string[]>): Record<string, string> {
  for (const name in headers) {
    const value = headers[name];
    if (Array.isArray(value)) headers[name] = value.join(', ');
  }
  return headers as Record<string, string>;
}
