import Router from '@koa/router';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { buildV1Document } from './v1-document.ts';
import { buildV2Document } from './v2-document.ts';

/** GET /v1/openapi.json and GET /v2/openapi.json (no auth): built once, when the app is. */
export function openApiRoutes({ config }: Services): Router<AppState> {
  const router = new Router<AppState>();
  const v1 = buildV1Document(config);
  const v2 = buildV2Document(config);
  router.get('/v1/openapi.json', (ctx) => {
    ctx.body = v1;
  });
  router.get('/v2/openapi.json', (ctx) => {
    ctx.body = v2;
  });
  return router;
}
