import { ConfigError, integer, type Env } from '../../platform/settings/env.ts';

/** How the gateway's own HTTP server treats its clients; each comes from an environment variable (see README.md). */
export interface HttpServerSettings {
  /** REQUEST_TIMEOUT_MS: from the first byte of a request to its last (headers and body); not the time to answer it. */
  requestTimeoutMs: number;
  /** HEADERS_TIMEOUT_MS: from the first byte of a request to the end of its headers; at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: how long a connection may stay idle between two requests. */
  keepAliveTimeoutMs: number;
  /** MAX_HEADER_BYTES: the request line and headers together. */
  maxHeaderBytes: number;
}

export const DEFAULT_HTTP_SERVER_SETTINGS: HttpServerSettings = {
  // A legitimate body is at most 1 MiB: 30 s is enough at 35 KB/s.
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
};

/** REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_HEADER_BYTES; Node refuses a headers timeout longer than the request timeout, so that is a config error. */
export function httpServerSettingsFromEnv(env: Env): HttpServerSettings {
  const d = DEFAULT_HTTP_SERVER_SETTINGS;
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', d.requestTimeoutMs, 100, 3_600_000);
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', Math.min(d.headersTimeoutMs, requestTimeoutMs), 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS', `must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs}) (got "${headersTimeoutMs}")`);
  }
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs, 100, 600_000),
    maxHeaderBytes: integer(env, 'MAX_HEADER_BYTES', d.maxHeaderBytes, 1024, 1_048_576),
  };
}
