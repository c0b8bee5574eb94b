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
  /** OUTBOUND_CONNECTIONS_PER_ORIGIN: the keep-alive pool size of one origin. */
  connectionsPerOrigin: number;
}

export const DEFAULT_OUTBOUND_SETTINGS: OutboundSettings = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  totalTimeoutMs: 60_000,
  maxResponseBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
  connectionsPerOrigin: 32,
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
    connectionsPerOrigin: integer(env, 'OUTBOUND_CONNECTIONS_PER_ORIGIN', d.connectionsPerOrigin, 1, 1024),
  };
}
