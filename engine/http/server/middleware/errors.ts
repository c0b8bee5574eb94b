import type { Middleware } from 'koa';
import { GatewayError } from '../../../platform/errors/index.ts';
import type { Logger } from '../../../platform/log/logger.ts';
import type { AppContext, AppState } from '../context.ts';
import type { Exchange } from '../exchange.ts';
import { cutAtShutdown } from '../shutdown-cut.ts';
import { refuseBadHost } from './host-header.ts';

/**
 * The one place that decides what a client sees of a failure: a GatewayError
 * as it is, an HTTP error raised by Koa or the router mapped to a stable code,
 * anything else as INTERNAL_ERROR with its details only in the log.
 * A request without the one valid Host header HTTP/1.1 asks for is refused first (host-header.ts).
 * (requestEdges, request-edges.ts, runs the same steps for the gateway's own app.)
 */
export function errorEnvelope(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      refuseBadHost(ctx);
      await next();
      refuseEmptyAnswer(ctx);
    } catch (thrown) {
      answerFailure(ctx, thrown, logger);
    }
  };
}

/** The router leaves 404, 405 and 501 without a body (and with an Allow header for 405); they become errors in the error shape. A handler that answered itself (ctx.respond false) has none either. */
export function refuseEmptyAnswer(ctx: AppContext): void {
  if (ctx.respond !== false && (ctx.body === undefined || ctx.body === null)) {
    if (ctx.status === 404) throw GatewayError.of('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
    if (ctx.status === 405) throw GatewayError.of('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}`);
    if (ctx.status === 501) throw GatewayError.of('METHOD_NOT_ALLOWED', `${ctx.method} is not supported`);
  }
}

/** What was thrown, answered in the error shape (failureAnswer); a caller already gone is 499 and no answer. */
export function answerFailure(ctx: AppContext, thrown: unknown, logger: Logger): void {
  const failure = failureAnswer(ctx, thrown, logger);
  ctx.status = failure.status;
  if (failure.body === null) return;
  // The type Koa would give a JSON body (ctx.type = 'json' looks it up in mime-types on every answer), written out.
  if (!ctx.res.hasHeader('Content-Type')) ctx.res.setHeader('Content-Type', JSON_TYPE);
  ctx.body = failure.body;
  if (failure.wwwAuthenticate) ctx.set('WWW-Authenticate', 'Bearer');
  if (failure.retryAfter !== undefined) ctx.set('Retry-After', failure.retryAfter);
}

/** A failure's answer: its status and error body (null: nobody is left to answer), and the two headers an error may need. */
export interface FailureAnswer {
  status: number;
  body: ReturnType<GatewayError['toBody']> | null;
  wwwAuthenticate: boolean;
  retryAfter?: string;
}

/** The Content-Type of a JSON answer, as Koa writes it. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * What a client is answered for what was thrown (a 5xx logged with its details, which the answer never holds),
 * for answerFailure and for the run lane (runs/run-lane.ts), which answers off Koa.
 */
export function failureAnswer(exchange: Exchange, thrown: unknown, logger: Logger): FailureAnswer {
  if (exchange.res.destroyed || exchange.socket.destroyed) {
    // The gateway closed the connection itself, at the end of SHUTDOWN_GRACE_MS (gateway.ts): not the caller's doing.
    if (cutAtShutdown(exchange.socket)) {
      logger.info({ reqId: exchange.state.requestId }, 'the gateway closed this request unanswered: it was still in flight when SHUTDOWN_GRACE_MS ran out');
      return { status: 503, body: null, wwwAuthenticate: false };
    }
    // The caller hung up (a run stops on that): nobody is left to answer, and nothing failed.
    logger.info({ reqId: exchange.state.requestId }, 'the caller went away before the answer');
    return { status: 499, body: null, wwwAuthenticate: false };
  }
  const error = toGatewayError(thrown, exchange.method, exchange.path);
  if (error.status >= 500) {
    // The gateway's own failure is an error, with its stack; an app or store that failed (unreachable, timing out,
    // busy, answering what cannot be read) is a warning naming the code: a flaky app must not page whoever
    // alerts on error lines, and its stack says nothing the code does not.
    if (GATEWAY_FAULTS.has(error.code)) logger.error({ reqId: exchange.state.requestId, err: thrown }, 'request failed');
    else logger.warn({ reqId: exchange.state.requestId, code: error.code, message: error.message }, `request failed: ${error.code}`);
  }
  const retryAfter = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return { status: error.status, body: error.toBody(), wwwAuthenticate: error.status === 401, ...(typeof retryAfter === 'number' ? { retryAfter: String(retryAfter) } : {}) };
}

/** 5xx codes that are the gateway's own failure (logged as errors with their stack); any other 5xx is an app's, the store's, or not-ready's. */
const GATEWAY_FAULTS = new Set<string>(['INTERNAL_ERROR', 'CREDENTIALS_UNREADABLE']);

const HTTP_STATUS_CODES: Record<number, Parameters<typeof GatewayError.of>[0]> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

function toGatewayError(thrown: unknown, method: string, path: string): GatewayError {
  if (thrown instanceof GatewayError) return thrown;
  const status = (thrown as { status?: unknown } | null)?.status;
  const expose = (thrown as { expose?: unknown } | null)?.expose === true;
  if (typeof status === 'number' && expose && HTTP_STATUS_CODES[status]) {
    if (status === 405) return GatewayError.of('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`);
    if (status === 404) return GatewayError.of('NOT_FOUND', `no route for ${method} ${path}`);
    return GatewayError.of(HTTP_STATUS_CODES[status]!, (thrown as Error).message);
  }
  return GatewayError.of('INTERNAL_ERROR', 'the gateway failed to handle this request; the request id identifies it in the logs');
}
