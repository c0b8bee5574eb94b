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
 * OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) from the environment; the
 * sampler and the resource attributes are checked here, since the SDK only
 * warns about (or silently drops) a value it cannot use and goes on with its
 * default.
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
  checkSampler(env);
  checkResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES);
  if (disabled === 'true' || named.includes('none')) return null;
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
  const exporters = (named.length > 0 ? named : endpoint ? ['otlp'] : []) as TraceExporterName[];
  return exporters.length > 0 ? { exporters: [...new Set(exporters)] } : null;
}

/** The samplers the SDK builds from OTEL_TRACES_SAMPLER; any other value it replaces with its default after a warning. */
export const TRACE_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

function checkSampler(env: Env): void {
  const sampler = env.OTEL_TRACES_SAMPLER?.trim();
  if (sampler === undefined || sampler === '') return;
  if (!(TRACE_SAMPLERS as readonly string[]).includes(sampler)) {
    throw new ConfigError('OTEL_TRACES_SAMPLER', `must be one of ${TRACE_SAMPLERS.join(', ')} (got "${sampler}")`);
  }
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  if (!sampler.endsWith('traceidratio') || arg === undefined || arg === '') return;
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(arg) || Number(arg) > 1) {
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `must be a ratio from 0 to 1 (e.g. 0.1) with OTEL_TRACES_SAMPLER=${sampler} (got "${arg}")`);
  }
}

/** `key=value,…` as the SDK's resource detector parses it (`,` and `=` percent-encoded); on any error the SDK would drop every attribute without a word. */
function checkResourceAttributes(raw: string | undefined): void {
  if (raw === undefined || raw.trim() === '') return;
  for (const entry of raw.split(',').filter((part) => part.trim() !== '')) {
    const pair = entry.split('=');
    let problem: string | null = null;
    if (pair.length !== 2) problem = 'must be key=value pairs separated by commas (with , and = percent-encoded in keys and values)';
    else if (pair[0]!.trim() === '') problem = 'has an entry without a key';
    else {
      try {
        const [key, value] = pair.map((part) => decodeURIComponent(part.trim()));
        if (key!.length > 255 || value!.length > 255) problem = 'has a key or value longer than 255 characters';
      } catch {
        problem = 'has an entry that is not valid percent-encoding';
      }
    }
    if (problem !== null) throw new ConfigError('OTEL_RESOURCE_ATTRIBUTES', `${problem} (got "${entry.trim()}")`);
  }
}
