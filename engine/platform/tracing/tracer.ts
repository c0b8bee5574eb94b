import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';

/**
 * The tracer the gateway's spans come from, or null when tracing is off.
 * Every call site asks this first and, when off, calls straight through:
 * no span objects, no context switch, nothing measurable on the request path.
 */
let active: Tracer | null = null;

export function activeTracer(): Tracer | null {
  return active;
}

/** Set by startTracing, cleared by its shutdown. */
export function setActiveTracer(tracer: Tracer | null): void {
  active = tracer;
}

/**
 * Runs `work` in a child span of the current one (INTERNAL unless said):
 * ended when it settles, status ERROR with the error's code (never its
 * message, which may quote a value) when it throws.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  const tracer = active;
  // Off: the work's own promise, not one more wrapped around it.
  if (!tracer) return work();
  return inNewSpan(tracer, name, attributes, work, kind);
}

async function inNewSpan<T>(tracer: Tracer, name: string, attributes: Attributes, work: () => Promise<T>, kind: SpanKind): Promise<T> {
  const span = tracer.startSpan(name, { kind, attributes });
  try {
    return await context.with(trace.setSpan(context.active(), span), work);
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span failed by the error's code or name: `error.type` and the status description. */
export function failed(span: Span, error: unknown): void {
  const type = errorType(error);
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && code) return code;
    if (typeof name === 'string' && name) return name;
  }
  return '_OTHER';
}
