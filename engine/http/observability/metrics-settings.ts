import { ConfigError, integer, listenHost, optional, type Env } from '../../platform/settings/env.ts';

/** GET /metrics: unauthenticated on a listener of its own (METRICS_PORT, METRICS_HOST), and/or on the main port behind a Bearer token (METRICS_TOKEN). */
export interface MetricsSettings {
  port: number | undefined;
  host: string;
  token: string | undefined;
}

/** METRICS_PORT (its own listener, on METRICS_HOST, default HOST) and METRICS_TOKEN (a Bearer token on the main port). */
export function metricsSettingsFromEnv(env: Env, port: number, host: string): MetricsSettings {
  const metricsPort = optional(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', `must differ from PORT (${port}): the metrics listener is a port of its own`);
  }
  const token = optional(env, 'METRICS_TOKEN');
  if (token !== undefined && !/^[A-Za-z0-9._~+/=-]{32,512}$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 32 to 512 characters of A-Z, a-z, 0-9, ".", "_", "~", "+", "/", "=" or "-" (e.g. `openssl rand -hex 32`)');
  }
  return { port: metricsPort, host: listenHost(env, 'METRICS_HOST') ?? host, token };
}
