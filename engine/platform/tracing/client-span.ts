import { context, createContextKey, propagation, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { activeTracer, failed } from './tracer.ts';

/** What the caller knows of an outbound call (app, action, attempt), for the CLIENT span the HTTP client makes. */
const CALL_FACTS = createContextKey('integration-gateway call facts');

/** The request as the HTTP client is about to send it. */
interface Sending {
  method: string;
  url: URL;
  headers: Record<string, string>;
}

/**
 * One CLIENT span per outbound call (redirects followed inside it), named by
 * its method: method, host, port, scheme, response status, and the facts its
 * caller gave (withCallFacts). Never the path, query, headers or body: they
 * may carry credentials. The W3C `traceparent` (and `tracestate`) of this
 * span is added to the request's headers.
 */
export function traceCall<T extends { status: number; redirects: number }>(sending: Sending, send: () => Promise<T>): Promise<T> {
  const tracer = activeTracer();
  // Tracing off: the call itself, with no async frame of its own around it.
  if (!tracer) return send();
  return inClientSpan(tracer, sending, send);
}

async function inClientSpan<T extends { status: number; redirects: number }>(tracer: NonNullable<ReturnType<typeof activeTracer>>, sending: Sending, send: () => Promise<T>): Promise<T> {
  const { url } = sending;
  const span = tracer.startSpan(sending.method, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': sending.method,
      'server.address': url.hostname,
      'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      'url.scheme': url.protocol.replace(/:$/, ''),
      ...(context.active().getValue(CALL_FACTS) as Attributes | undefined),
    },
  });
  const inSpan = trace.setSpan(context.active(), span);
  propagation.inject(inSpan, sending.headers);
  try {
    const response = await context.with(inSpan, send);
    span.setAttribute('http.response.status_code', response.status);
    if (response.redirects > 0) span.setAttribute('gateway.http.redirects', response.redirects);
    if (response.status >= 400) {
      span.setAttribute('error.type', String(response.status));
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(response.status) });
    }
    return response;
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Runs `call` with `facts` for the CLIENT span of the outbound call it makes. */
export async function withCallFacts<T>(facts: Attributes, call: () => Promise<T>): Promise<T> {
  if (!activeTracer()) return await call();
  return await context.with(context.active().setValue(CALL_FACTS, facts), call);
}

/** An app call of a run: which app, version and action, and which attempt (rate-limit retries and a token renewal resend it). */
export function appCall<T>(run: { version: { app: { slug: string }; version: unknown }; action: { id: string } }, resends: number, call: () => Promise<T>): Promise<T> {
  if (!activeTracer()) return call();
  return withCallFacts(
    {
      'gateway.app.slug': run.version.app.slug,
      'gateway.app.version': String(run.version.version),
      'gateway.action.id': run.action.id,
      ...(resends > 0 ? { 'http.request.resend_count': resends } : {}),
    },
    call,
  );
}
