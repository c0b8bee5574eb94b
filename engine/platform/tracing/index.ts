export { startTracing, type Tracing } from './start-tracing.ts';
export { tracingFromEnv, type TracingConfig } from './tracing-config.ts';
export { traceCall, appCall, withCallFacts } from './client-span.ts';
export { traceMapping, traceRenewal } from './spans.ts';
