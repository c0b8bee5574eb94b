import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { bearerToken } from '../guards/bearer.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { AppContext, AppState } from '../server/context.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';

/**
 * GET /metrics in the Prometheus text format. On the main port it is served
 * only behind METRICS_TOKEN (no token configured: no route, a 404 like any
 * unknown path); on the metrics listener (METRICS_PORT) it is open, for
 * in-cluster scraping, and nothing else is served there.
 */
export function metricsRoutes(metrics: GatewayMetrics | undefined, access: { token: string } | 'open' | null): Router<AppState> {
  const router = new Router<AppState>();
  if (!metrics || access === null) return router;
  const expected = access === 'open' ? null : digest(access.token);
  router.get('/metrics', async (ctx) => {
    if (expected) requireToken(ctx, expected);
    ctx.set('Content-Type', metrics.registry.contentType);
    ctx.body = await metrics.registry.metrics();
  });
  return router;
}

/** Compared as SHA-256 digests in constant time: equal lengths always, and no early exit on the first differing byte. */
function requireToken(ctx: AppContext, expected: Buffer): void {
  const given = bearerToken(ctx);
  if (given === null || !timingSafeEqual(digest(given), expected)) {
    throw GatewayError.of('UNAUTHORIZED', 'GET /metrics needs the METRICS_TOKEN as a Bearer token (Authorization: Bearer <METRICS_TOKEN>)');
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
