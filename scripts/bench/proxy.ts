/**
 * The bare pass-through proxy (its own process): the floor any gateway pays.
 * Koa and undici.request, like the gateway, but no auth, no arguments, no
 * mapping: GET /records?limit=N is forwarded to the upstream's
 * /api/records?limit=N through a keep-alive pool without a cap on its
 * sockets (undici's default, as the gateway's: with a 100 ms upstream a cap
 * of N caps it at N x 10 req/s), its body read whole (as any gateway that
 * maps a response must) and sent back as it is.
 */
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { Agent, request } from 'undici';
import { serveAsChild } from './child.ts';

const upstream = process.env.BENCH_UPSTREAM_URL;
if (!upstream) throw new Error('BENCH_UPSTREAM_URL is not set');
const dispatcher = new Agent();
/**
 * BENCH_PROXY_BURN_US: CPU spent (busy) on each request before forwarding it,
 * 0 by default. The budget part of the benchmark uses it to show what a
 * given amount of work per request costs in req/s on this machine.
 */
const burnMs = Number(process.env.BENCH_PROXY_BURN_US ?? 0) / 1000;

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method !== 'GET' || ctx.path !== '/records') {
    ctx.status = 404;
    return;
  }
  if (burnMs > 0) for (const end = performance.now() + burnMs; performance.now() < end; );
  const response = await request(`${upstream}/api/records${ctx.search}`, { dispatcher, method: 'GET', headers: { accept: 'application/json' } });
  ctx.status = response.statusCode;
  ctx.type = 'application/json';
  ctx.body = Buffer.from(await response.body.arrayBuffer());
});

const server = http.createServer(app.callback());
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  serveAsChild({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dispatcher.close();
  });
});
