import Router from '@koa/router';
import { requireApiKey } from '../guards/require-api-key.ts';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';

/**
 * GET /v2/definitions/status (API key): which snapshot serves (content hash,
 * loaded-at, app count) and the located problems of the latest load attempt,
 * so a platform team sees why a change was not taken without reading logs.
 */
export function definitionsRoutes({ store, definitions }: Services): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/v2/definitions/status', requireApiKey(store), (ctx) => {
    ctx.body = { success: true, data: definitions.status() };
  });
  return router;
}
