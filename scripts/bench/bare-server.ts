/**
 * A bare server (its own process) answering every request with the same small
 * JSON error body the gateway answers an unknown action with: plain node:http
 * (BENCH_BARE=node) or Koa with one middleware (BENCH_BARE=koa). The floor of
 * the request level (request-level.ts).
 */
import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveAsChild } from './child.ts';

export const NOT_FOUND_BODY = JSON.stringify({ success: false, error: { code: 'ACTION_NOT_FOUND', message: 'bench version 1 has no action with slug "none"' } });

const variant = process.env.BENCH_BARE ?? 'node';
let handler: http.RequestListener;
if (variant === 'koa') {
  const app = new Koa();
  app.use(async (ctx) => {
    ctx.status = 404;
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = NOT_FOUND_BODY;
  });
  handler = app.callback();
} else {
  const body = Buffer.from(NOT_FOUND_BODY);
  handler = (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    });
  };
}
const server = http.createServer(handler);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  serveAsChild({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
