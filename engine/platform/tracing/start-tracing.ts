import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/port.ts';
import type { TracingConfig } from './tracing-config.ts';

/** Tracing as started for one gateway. */
export interface Tracing {
  /** The store with a span per operation when tracing is on; the store itself when off. */
  store(store: Store): Store;
  /** Exports what is buffered and unregisters the SDK (gateway stop). */
  shutdown(): Promise<void>;
}

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
