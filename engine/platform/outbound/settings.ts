import v8 from 'node:v8';
import { integer, type Env } from '../settings/env.ts';

/** Limits of every outbound call; each comes from an environment variable (see README.md and docs/outbound.md). */
export interface OutboundSettings {
  /** OUTBOUND_CONNECT_TIMEOUT_MS: name resolution plus TCP (and TLS) connect. */
  connectTimeoutMs: number;
  /** OUTBOUND_HEADERS_TIMEOUT_MS: from the request sent to the response headers received. */
  headersTimeoutMs: number;
  /** OUTBOUND_BODY_TIMEOUT_MS: the longest pause between two chunks of the response body. */
  bodyTimeoutMs: number;
  /** OUTBOUND_TOTAL_TIMEOUT_MS: one send(), every redirect hop and the whole body included. */
  totalTimeoutMs: number;
  /** OUTBOUND_MAX_RESPONSE_BYTES: the body as received and as decoded, each. */
  maxResponseBytes: number;
  /** OUTBOUND_MAX_REDIRECTS: redirects followed before giving up (0: none followed, a 3xx is returned as is). */
  maxRedirects: number;
  /** OUTBOUND_CONNECTIONS_PER_ORIGIN: the most sockets open to one origin; 0 (the default): no cap (an app's calls at once are bounded by its api.yaml concurrency). */
  connectionsPerOrigin: number;
  /** OUTBOUND_MAX_BUFFERED_BYTES: response bytes all calls of the process read at once (buffered-bytes.ts); a quarter of V8's heap limit by default. */
  maxBufferedBytes: number;
}

/** A quarter of the heap this process may grow to (--max-old-space-size): what responses being read may take of it. */
export function defaultMaxBufferedBytes(): number {
  return Math.floor(v8.getHeapStatistics().heap_size_limit / 4);
}

export const DEFAULT_OUTBOUND_SETTINGS: OutboundSettings = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  totalTimeoutMs: 60_000,
  maxResponseBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
  connectionsPerOrigin: 0,
  maxBufferedBytes: defaultMaxBufferedBytes(),
};

/** OUTBOUND_*: the limits of every call to an app or a token endpoint. */
export function outboundSettingsFromEnv(env: Env): OutboundSettings {
  const d = DEFAULT_OUTBOUND_SETTINGS;
  return {
    connectTimeoutMs: integer(env, 'OUTBOUND_CONNECT_TIMEOUT_MS', d.connectTimeoutMs, 1, 600_000),
    headersTimeoutMs: integer(env, 'OUTBOUND_HEADERS_TIMEOUT_MS', d.headersTimeoutMs, 1, 600_000),
    bodyTimeoutMs: integer(env, 'OUTBOUND_BODY_TIMEOUT_MS', d.bodyTimeoutMs, 1, 600_000),
    totalTimeoutMs: integer(env, 'OUTBOUND_TOTAL_TIMEOUT_MS', d.totalTimeoutMs, 1, 3_600_000),
    maxResponseBytes: integer(env, 'OUTBOUND_MAX_RESPONSE_BYTES', d.maxResponseBytes, 1, 1_073_741_824),
    maxRedirects: integer(env, 'OUTBOUND_MAX_REDIRECTS', d.maxRedirects, 0, 20),
    connectionsPerOrigin: integer(env, 'OUTBOUND_CONNECTIONS_PER_ORIGIN', d.connectionsPerOrigin, 0, 1_000_000),
    maxBufferedBytes: integer(env, 'OUTBOUND_MAX_BUFFERED_BYTES', d.maxBufferedBytes, 1, Number.MAX_SAFE_INTEGER),
  };
}
