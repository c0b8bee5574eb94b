import type { Middleware } from 'koa';
import type { AppContext, AppState } from '../context.ts';

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
    closeIfUnread(ctx);
  };
}

/** After the answer is decided: Connection: close when the request's body was not received to its end (requestEdges calls it too). */
export function closeIfUnread(ctx: AppContext): void {
  if (!ctx.req.complete && !ctx.headerSent) ctx.set('Connection', 'close');
}
