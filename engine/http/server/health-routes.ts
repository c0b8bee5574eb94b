import Router from '@koa/router';
import { GatewayError } from '../../platform/errors/index.ts';
import type { AppState } from './context.ts';
import type { Services } from '../services.ts';

/**
 * How long one readiness check may take; past it the check fails ("no answer within 2000 ms"), so a
 * store that hangs answers 503 with its reason instead of a probe that times out without one.
 */
export const READY_CHECK_TIMEOUT_MS = 2_000;

/** GET /health: the process answers. GET /ready: the store is reachable and every other readiness check passes. */
export function healthRoutes({ store, readiness }: Services): Router<AppState> {
  const router = new Router<AppState>();
  const checks = [{ name: 'store', check: () => pingStore(store) }, ...readiness];

  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/ready', async (ctx) => {
    const results = await Promise.all(checks.map(async (c) => ({ name: c.name, reason: await bounded(c.check()).catch(describe) })));
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

function bounded(check: Promise<string | null>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${READY_CHECK_TIMEOUT_MS} ms`), READY_CHECK_TIMEOUT_MS);
  });
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}

function describe(error: unknown): string {
  return error instanceof Error ? `unreachable (${error.message})` : 'unreachable';
}
