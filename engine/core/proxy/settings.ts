import { integer, type Env } from '../../platform/settings/env.ts';
import type { StreamLimits } from '../../platform/outbound/stream.ts';

/** The proxy's own limits (PROXY_*; see README.md and docs/proxy.md): a run's JSON body and mapped-response limits do not apply to it. */
export interface ProxySettings {
  /** PROXY_MAX_REQUEST_BYTES: the largest body a caller may send through the proxy. */
  maxRequestBytes: number;
  /** PROXY_MAX_RESPONSE_BYTES: the largest body an app may answer through it, as received and as decoded, each. */
  maxResponseBytes: number;
  /** PROXY_TOTAL_TIMEOUT_MS: one proxied call, from the first byte sent to the last byte of the answer, redirects and retries' calls each. */
  totalTimeoutMs: number;
  /**
   * PROXY_RETRY_BODY_BYTES: a body up to this size is held, so that a token
   * renewal, a rate-limit retry or a 307/308 redirect can send it again; a
   * larger one streams once, and the app's first answer is final.
   */
  retryBodyBytes: number;
}

export const DEFAULT_PROXY_SETTINGS: ProxySettings = {
  maxRequestBytes: 100 * 1024 * 1024,
  maxResponseBytes: 100 * 1024 * 1024,
  totalTimeoutMs: 300_000,
  retryBodyBytes: 1024 * 1024,
};

/** PROXY_*: the limits of calls through /v2/proxy and /v2/end-user/proxy. */
export function proxySettingsFromEnv(env: Env): ProxySettings {
  const d = DEFAULT_PROXY_SETTINGS;
  return {
    maxRequestBytes: integer(env, 'PROXY_MAX_REQUEST_BYTES', d.maxRequestBytes, 0, 10 * 1024 * 1024 * 1024),
    maxResponseBytes: integer(env, 'PROXY_MAX_RESPONSE_BYTES', d.maxResponseBytes, 1, 10 * 1024 * 1024 * 1024),
    totalTimeoutMs: integer(env, 'PROXY_TOTAL_TIMEOUT_MS', d.totalTimeoutMs, 1_000, 3_600_000),
    retryBodyBytes: integer(env, 'PROXY_RETRY_BODY_BYTES', d.retryBodyBytes, 0, 16 * 1024 * 1024),
  };
}

/** The limits one streamed call is sent with, naming the settings they come from. */
export function streamLimitsOf(settings: ProxySettings): StreamLimits {
  return {
    maxRequestBytes: settings.maxRequestBytes,
    maxResponseBytes: settings.maxResponseBytes,
    totalTimeoutMs: settings.totalTimeoutMs,
    settings: { maxRequestBytes: 'PROXY_MAX_REQUEST_BYTES', maxResponseBytes: 'PROXY_MAX_RESPONSE_BYTES', totalTimeoutMs: 'PROXY_TOTAL_TIMEOUT_MS' },
  };
}
