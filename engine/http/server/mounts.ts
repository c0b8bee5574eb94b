import Router from '@koa/router';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RunFacts } from '../../core/run/run-facts.ts';
import type { AppContext, AppState } from './context.ts';
import { stopReason } from '../../platform/outbound/index.ts';

/**
 * One HTTP exchange handed to a handler another surface owns (the MCP
 * endpoint), as the composition root mounts it: the request has been
 * through everything every route gets (a request id, the request log line,
 * the metrics, the trace span, the JSON body read under the same limits).
 */
export interface MountedExchange {
  requestId: string;
  /** The JSON body, read and parsed as every route's is (1 MiB, JSON only, depth checked); undefined without one. */
  body: unknown;
  /** Records a run's facts for the request log line and the metrics, as the run routes do. */
  recordRun(facts: RunFacts): void;
}

/** A handler of one path, in web-standard terms, so the surface that owns it needs nothing of Koa or of this one. */
export interface MountedHandler {
  path: string;
  methods: readonly string[];
  /** The answer to one request; its signal aborts when the caller goes away before the answer is written. */
  handle(request: Request, exchange: MountedExchange): Promise<Response>;
}

/**
 * The routes of the mounted handlers: each request becomes a web Request
 * (the body stays ctx.state.body, already read), the Response is written as
 * it comes (a stream is streamed), and the route's middleware returns only
 * once it is written, so the log line and the metrics time the whole answer.
 */
export function mountedRoutes(mounts: readonly MountedHandler[], publicBaseUrl: string): Router<AppState> {
  const router = new Router<AppState>();
  for (const mount of mounts) {
    router.register(mount.path, [...mount.methods], async (ctx: AppContext) => {
      const abort = new AbortController();
      ctx.res.once('close', () => {
        if (!ctx.res.writableEnded) abort.abort(stopReason('the caller went away'));
      });
      const request = new Request(new URL(ctx.url, publicBaseUrl), { method: ctx.method, headers: webHeaders(ctx.req.headers), signal: abort.signal });
      const response = await mount.handle(request, {
        requestId: ctx.state.requestId,
        body: ctx.state.body,
        recordRun: (facts) => {
          ctx.state.run = facts;
        },
      });
      await write(ctx, response);
    });
  }
  return router;
}

function webHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else headers.set(name, value);
  }
  return headers;
}

/** Written on Node's response directly (Koa steps aside: ctx.respond = false); a caller gone mid-stream ends it quietly. */
async function write(ctx: AppContext, response: Response): Promise<void> {
  ctx.respond = false;
  const { res } = ctx;
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  try {
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), res);
  } catch {
    // The caller went away, or the stream was ended by its producer (a shutdown): nothing is left to answer.
    if (!res.destroyed) res.destroy();
  }
}
