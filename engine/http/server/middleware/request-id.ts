import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';

/** A caller's id is kept when it is short and plain; anything else is replaced, never echoed. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Read and written on Node's own request and response (Koa's ctx.get/ctx.set add a delegate and a switch to each), no async frame of its own. */
export function requestId(): Middleware<AppState> {
  return (ctx, next) => {
    const id = requestIdOf(ctx.req);
    ctx.state.requestId = id;
    ctx.res.setHeader('X-Request-Id', id);
    return next();
  };
}

/** The request's id: the caller's X-Request-Id when it is short and plain, else a new one (for the run lane too). */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}
