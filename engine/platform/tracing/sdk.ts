import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../log/logger.ts';
import type { Tracing } from './tracing.ts';
import type { TraceExporterName, TracingConfig } from './tracing-config.ts';
import { traceStore } from './traced-store.ts';
import { setActiveTracer } from './tracer.ts';

/** The default `service.name`; OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) replaces it. */
export const SERVICE_NAME = 'integration-gateway';

/**
 * The OpenTelemetry SDK, loaded only when tracing is configured: a Node
 * tracer provider (AsyncLocalStorage context, the sampler of
 * OTEL_TRACES_SAMPLER, parent-based always-on by default) registered as the
 * global one, with the W3C trace-context propagator alone (no baggage: what
 * a caller puts there is not forwarded to third-party apps). OTLP spans go
 * through a batch processor (OTEL_BSP_*); `exporter` (tests) replaces the
 * configured exporters with a simple processor.
 */
export function startSdk(config: TracingConfig, logger: Logger, exporter?: SpanExporter): Tracing {
  // The SDK's own troubles (an export the collector refused, say) are warnings in the gateway's log.
  diag.setLogger(
    {
      error: (message) => logger.warn({ component: 'opentelemetry' }, message),
      warn: (message) => logger.warn({ component: 'opentelemetry' }, message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.WARN,
  );
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  const spanProcessors: SpanProcessor[] = exporter ? [new SimpleSpanProcessor(exporter)] : config.exporters.map(processorOf);
  const provider = new NodeTracerProvider({ resource, spanProcessors });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  setActiveTracer(provider.getTracer(SERVICE_NAME));
  logger.info({ exporters: exporter ? ['(given)'] : config.exporters }, 'tracing on: OpenTelemetry spans are exported');

  let stopped: Promise<void> | null = null;
  return {
    store: traceStore,
    shutdown: () =>
      (stopped ??= (async () => {
        setActiveTracer(null);
        // Flushes what the batch processor holds; an unreachable collector is a warning, not a failed stop.
        await provider.shutdown().catch((error: unknown) => logger.warn({ component: 'opentelemetry', err: error }, 'tracing: the last spans were not exported'));
        trace.disable();
        context.disable();
        propagation.disable();
        diag.disable();
      })()),
  };
}

function processorOf(name: TraceExporterName): SpanProcessor {
  // OTLPTraceExporter reads its endpoint, headers, timeout and compression from OTEL_EXPORTER_OTLP_(TRACES_)*.
  return name === 'otlp' ? new BatchSpanProcessor(new OTLPTraceExporter()) : new SimpleSpanProcessor(new ConsoleSpanExporter());
}
