import type { RedirectPolicy } from './redirect.ts';
import type { Abortable } from './call-stop.ts';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface OutboundRequest {
  method: string;
  /** Absolute http: or https: URL; may carry a query string of its own. */
  url: string;
  headers?: Record<string, string>;
  /** Appended to the URL's query; arrays repeat the key. */
  query?: Record<string, QueryValue>;
  /** JSON by default; see encodeBody for forms and text. */
  body?: JsonValue;
  /**
   * What a redirect to another origin does with this call (see RedirectPolicy):
   * `strip` (the default) drops its credentials and follows; `refuse` does not
   * follow, for calls whose request itself is a credential (token endpoints,
   * credential exchanges).
   */
  redirect?: RedirectPolicy;
  /** Aborts the call (the client went away); reported as an AbortError, not an OutboundError. */
  signal?: Abortable;
  /**
   * A UTF-8 JSON body of this many bytes or more is neither decoded nor parsed: the response's `body` does
   * both when first read (deferred-json.ts; `jsonText` is unset). For a caller that maps it in a worker thread.
   */
  deferJsonFrom?: number;
  /**
   * How long the whole call may take, its answer read to the end (api.yaml `timeoutMs`), in place of
   * OUTBOUND_TOTAL_TIMEOUT_MS; `timeoutSetting` names it in the UPSTREAM_TIMEOUT message.
   */
  timeoutMs?: number;
  timeoutSetting?: string;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". As the app sent them (Content-Encoding included). */
  headers: Record<string, string>;
  /**
   * Parsed JSON when the Content-Type says JSON, the decoded text otherwise;
   * null when the body is empty. When JSON was declared but does not parse,
   * the text, with `invalidJson: true`.
   */
  body: JsonValue | string | null;
  invalidJson?: true;
  /** The decoded text `body` was parsed from, when it was parsed as JSON. */
  jsonText?: string;
  /** True when that text was decoded from `rawBody` as UTF-8 (no charset, or a UTF-8 one). */
  jsonUtf8?: true;
  /** The decoded body bytes (what `body` was made from), and their count. */
  rawBody: Buffer;
  rawBytes: number;
  /** Bytes received for the body, before content decoding. */
  wireBytes: number;
  durationMs: number;
  /** The URL that answered (after redirects), and how many redirects were followed. */
  url: string;
  redirects: number;
}

export type QueryValue = string | number | boolean | null | undefined | (string | number | boolean)[];
