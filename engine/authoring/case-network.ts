import { MockAgent } from 'undici';
import { isJsonType } from '../platform/outbound/encode.ts';
import type { Exchange, ExpectedRequest } from './case-file.ts';
import { described, differences, type Difference } from './structural-diff.ts';

/** A request the engine sent, as the fake network saw it on the wire. */
export interface SentRequest {
  method: string;
  /** Origin and path, without the query string. */
  url: string;
  /** Decoded query parameters; a repeated key is a list. */
  query: Record<string, string | string[]>;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Parsed JSON, a form as a flat object of strings, text, or null for none. */
  body: unknown;
  /** As it went on the wire: the path with its query string, the headers as given, the body's bytes as text. */
  wire: { origin: string; path: string; headers: Record<string, string>; body: string | null };
}

/**
 * The network of one case: an undici MockAgent that answers the case's
 * recorded responses in order (strict lookups first, then the action's call and
 * any re-sends) and compares each request the engine sends with the one the
 * case expects. Nothing reaches a real host: a request beyond the recorded
 * ones is refused (and reported).
 */
export class CaseNetwork {
  readonly agent = new MockAgent();
  readonly sent: SentRequest[] = [];
  readonly differences: Difference[] = [];

  constructor(private readonly exchanges: Exchange[]) {
    this.agent.disableNetConnect();
    this.agent
      .get(() => true)
      .intercept({ path: () => true, method: () => true })
      .reply((options) => this.answer(options as unknown as DispatchOptions))
      .persist();
  }

  private answer(options: DispatchOptions) {
    const sent = sentRequest(options);
    const index = this.sent.length;
    this.sent.push(sent);
    const exchange = this.exchanges[index];
    if (!exchange) {
      this.differences.push({ path: `request ${index + 1}`, expected: described('no more requests'), actual: described(`${sent.method} ${sent.url}`) });
      throw new Error(`no recorded response for request ${index + 1} (${sent.method} ${sent.url})`);
    }
    if (exchange.request) this.differences.push(...compareRequest(exchange.label, exchange.request, sent));
    const { status, headers, body } = exchange.response;
    const replyHeaders = { ...headers };
    let data = '';
    if (typeof body === 'string') data = body;
    else if (body !== null && body !== undefined) {
      data = JSON.stringify(body);
      replyHeaders['content-type'] ??= 'application/json';
    }
    return { statusCode: status, data, responseOptions: { headers: replyHeaders } };
  }

  /** After the run: recorded responses no request asked for. */
  unused(): Difference[] {
    return this.exchanges.slice(this.sent.length).map((exchange) => ({
      path: exchange.label,
      expected: described(exchange.request?.method && exchange.request.url ? `${exchange.request.method} ${exchange.request.url}` : 'a request'),
      actual: described('no request'),
    }));
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

interface DispatchOptions {
  origin?: string | URL;
  path: string;
  method: string;
  headers?: Record<string, string | string[]> | string[] | null;
  body?: string | Buffer | Uint8Array | null;
}

function sentRequest(options: DispatchOptions): SentRequest {
  const url = new URL(options.path, String(options.origin));
  const query = fieldsOf(url.searchParams);
  const headers = headerObject(options.headers);
  const body = options.body === null || options.body === undefined ? null : typeof options.body === 'string' ? options.body : Buffer.from(options.body).toString('utf8');
  return {
    method: options.method.toUpperCase(),
    url: `${url.origin}${url.pathname}`,
    query,
    headers,
    body: decodeBody(options.body, headers['content-type']),
    wire: { origin: String(options.origin), path: options.path, headers, body },
  };
}

function headerObject(raw: DispatchOptions['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!raw) return headers;
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) headers[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
    return headers;
  }
  for (const [name, value] of Object.entries(raw)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  return headers;
}

function decodeBody(raw: DispatchOptions['body'], contentType: string | undefined): unknown {
  if (raw === null || raw === undefined) return null;
  const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
  if (text === '') return null;
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')) {
    return fieldsOf(new URLSearchParams(text));
  }
  if (isJsonType(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** What differs between the request a case expects and the one sent: only what the case lists is compared. */
export function compareRequest(label: string, expected: ExpectedRequest, sent: SentRequest): Difference[] {
  const result: Difference[] = [];
  if (expected.method !== undefined) result.push(...differences(`${label}.method`, expected.method.toUpperCase(), sent.method));
  if (expected.url !== undefined) result.push(...differences(`${label}.url`, expected.url, sent.url));
  if (expected.query !== undefined) result.push(...differences(`${label}.query`, expected.query, sent.query));
  if (expected.headers !== undefined) {
    const wanted = Object.fromEntries(Object.entries(expected.headers).map(([name, value]) => [name.toLowerCase(), value]));
    result.push(...differences(`${label}.headers`, wanted, sent.headers, 'subset'));
  }
  if ('body' in expected) result.push(...differences(`${label}.body`, expected.body ?? null, sent.body));
  return result;
}

/**
 * A query's or form's fields, a repeated one as the list of its values. Each is the object's own member (a field
 * named constructor or toString is not Object's function, one named __proto__ is a field like any other).
 */
function fieldsOf(params: URLSearchParams): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [key, value] of params) {
    const had = Object.hasOwn(fields, key) ? fields[key] : undefined;
    Object.defineProperty(fields, key, { value: had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value], enumerable: true, writable: true, configurable: true });
  }
  return fields;
}
