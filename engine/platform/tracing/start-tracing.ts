import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../log/logger.ts';
import type { TracingConfig } from './tracing-config.ts';
import type { Tracing } from './tracing.ts';

export type { Tracing };

/** Tracing as started for one gateway. */

const OFF: Tracing = { store: (store) => store, shutdown: async () => {} };

/**
 * Starts the OpenTelemetry SDK when OTEL_* configured it (config.tracing);
 * off, the SDK is not even imported. `testing.exporter` (an in-memory
 * exporter) replaces the configured exporters; it does not turn tracing on.
 */
export async function startTracing(config: TracingConfig | null, logger: Logger, testing: { exporter?: SpanExporter } = {}): Promise<Tracing> {
  if (!config) return OFF;
  const { startSdk } = await import('./sdk.ts');
  return startSdk(config, logger, testing.exporter);
}
