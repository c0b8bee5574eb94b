import Router from '@koa/router';
import { GatewayError } from '../errors/index.ts';
import type { AppState } from './context.ts';
import type { Services } from '../services.ts';

/** GET /health: the process answers. GET /ready: the store is reachable and every other readiness check passes. */
export function healthRoutes({ store, readiness }: Services): Router<AppState> {
  const router = new Router<AppState>();
  const checks = [{ name: 'store', check: () => pingStore(store) }, ...readiness];

  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/ready', async (ctx) => {
    const results = await Promise.all(checks.map(async (c) => ({ name: c.name, reason: await c.check().catch(describe) })));
    const failing = results.filter((r) => r.reason !== null);
    if (failing.length) {
      throw GatewayError.of('NOT_READY', failing.map((r) => `${r.name}: ${r.reason}`).join('; '));
    }
    ctx.body = { status: 'ready', checks: Object.fromEntries(results.map((r) => [r.name, 'ok'])) };
  });

  return router;
}

async function pingStore(store: Services['store']): Promise<string | null> {
  await store.ping();
  return null;
}

function describe(error: unknown): string {
  return error instanceof Error ? `unreachable (${error.message})` : 'unreachable';
}
