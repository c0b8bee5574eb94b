import { ConfigError, type Env } from '../settings/env.ts';

/** The exporters the gateway can build from OTEL_TRACES_EXPORTER. */
export const TRACE_EXPORTERS = ['otlp', 'console'] as const;
export type TraceExporterName = (typeof TRACE_EXPORTERS)[number];

/** Tracing as the standard OTEL_* variables configure it; null is off (the SDK is not even loaded). */
export interface TracingConfig {
  exporters: TraceExporterName[];
}

/**
 * Off unless asked for: OTEL_TRACES_EXPORTER names an exporter, or an OTLP
 * endpoint is given (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, exporter `otlp`). OTEL_SDK_DISABLED=true
 * and OTEL_TRACES_EXPORTER=none turn it off whatever else is set. The SDK
 * itself reads the rest (endpoint, headers, timeout, sampler, batch sizes,
 * OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) from the environment.
 */
export function tracingFromEnv(env: Env): TracingConfig | null {
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase();
  if (disabled !== undefined && disabled !== '' && disabled !== 'true' && disabled !== 'false') {
    throw new ConfigError('OTEL_SDK_DISABLED', `must be true or false (got "${env.OTEL_SDK_DISABLED}")`);
  }
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of named) {
    if (name !== 'none' && !(TRACE_EXPORTERS as readonly string[]).includes(name)) {
      throw new ConfigError('OTEL_TRACES_EXPORTER', `must be otlp, console or none, or a comma-separated list of them (got "${env.OTEL_TRACES_EXPORTER}")`);
    }
  }
  for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[variable]?.trim();
    if (protocol && protocol !== 'http/json') {
      throw new ConfigError(variable, `must be http/json: the gateway exports OTLP as JSON over HTTP, not grpc or http/protobuf (got "${protocol}")`);
    }
  }
  for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    const endpoint = env[variable]?.trim();
    if (endpoint && !/^https?:\/\/[^\s]+$/.test(endpoint)) {
      throw new ConfigError(variable, 'must be an http:// or https:// URL');
    }
  }
  if (disabled === 'true' || named.includes('none')) return null;
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
  const exporters = (named.length > 0 ? named : endpoint ? ['otlp'] : []) as TraceExporterName[];
  return exporters.length > 0 ? { exporters: [...new Set(exporters)] } : null;
}
