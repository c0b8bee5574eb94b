import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';

/**
 * An answer given before the request body was received to its end (a body
 * refused at 413, 415 or 400, or one no route reads) closes the connection:
 * otherwise Node would go on reading and discarding the rest for as long as
 * the client cares to send it, and answer the same connection again (408)
 * when REQUEST_TIMEOUT_MS runs out.
 */
export function closeUnread(): Middleware<AppState> {
  return async (ctx, next) => {
    await next();
    if (!ctx.req.complete && !ctx.headerSent) ctx.set('Connection', 'close');
  };
}
