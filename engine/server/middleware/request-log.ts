import type { Middleware } from 'koa';
import type { Logger } from '../../log/logger.ts';
import type { AppState } from '../context.ts';

/**
 * One line per request: method, path (no query string: it may carry secrets), status, duration, request id;
 * for a run, its story too (ctx.state.run: company, app, action, version, connection, upstream status and
 * time, retries, outcome), ids and counts only.
 */
export function requestLog(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    // Below the logger's level (LOG_LEVEL=warn, say) the line is not built at all; the level is read per request, as it may be changed.
    if (!logger.isLevelEnabled('info')) return await next();
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        { reqId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, durationMs: Math.round(durationMs * 100) / 100, ...ctx.state.run },
        'request',
      );
    }
  };
}
