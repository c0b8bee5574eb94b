import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';

/** A caller's id is kept when it is short and plain; anything else is replaced, never echoed. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Read and written on Node's own request and response (Koa's ctx.get/ctx.set add a delegate and a switch to each), no async frame of its own. */
export function requestId(): Middleware<AppState> {
  return (ctx, next) => {
    const given = ctx.req.headers['x-request-id'];
    const id = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.res.setHeader('X-Request-Id', id);
    return next();
  };
}
