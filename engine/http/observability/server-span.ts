import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Middleware, Next } from 'koa';
import type { AppContext, AppState } from '../server/context.ts';
import { activeTracer } from '../../platform/tracing/tracer.ts';
import { shownPath } from '../proxy/shown-path.ts';

/**
 * One SERVER span per request, named `METHOD /route/template` once the router
 * has matched (just `METHOD` when no route did), child of the caller's W3C
 * `traceparent` when it sent one. Attributes: method, path (never the query),
 * route, status, request id (a proxied request's path without the app's part, shown-path.ts). ERROR on a 5xx, with the envelope's error code.
 * Mounted outside the error envelope, so the status is the one answered.
 */
export function traceRequests(): Middleware<AppState> {
  // With tracing off (no tracer), a request costs this check and nothing else: no async frame, no span.
  return (ctx, next) => {
    const tracer = activeTracer();
    return tracer ? traced(tracer, ctx, next) : next();
  };
}

async function traced(tracer: Tracer, ctx: AppContext, next: Next): Promise<void> {
  const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
  const span = tracer.startSpan(
    ctx.method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': ctx.method, 'url.path': shownPath(ctx.path), 'url.scheme': ctx.protocol, 'gateway.request.id': ctx.state.requestId },
    },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    if (typeof route === 'string') {
      span.updateName(`${ctx.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', ctx.status);
    if (ctx.status >= 500) {
      const code = (ctx.body as { error?: { code?: unknown } } | null | undefined)?.error?.code;
      const type = typeof code === 'string' ? code : String(ctx.status);
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
    span.end();
  }
}
