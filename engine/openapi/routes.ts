import Router from '@koa/router';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { buildV1Document } from './v1-document.ts';

/** GET /v1/openapi.json (no auth): built once, when the app is. */
export function openApiRoutes({ config }: Services): Router<AppState> {
  const router = new Router<AppState>();
  const document = buildV1Document(config);
  router.get('/v1/openapi.json', (ctx) => {
    ctx.body = document;
  });
  return router;
}
