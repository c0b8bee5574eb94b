import Router from '@koa/router';
import type { Context } from 'koa';
import type { AppState } from '../../server/context.ts';
import { loadSdkAssets, type SdkAsset, type SdkAssets } from './sdk-assets.ts';
import { etagMatches } from '../../server/etag.ts';

/**
 * GET /sdk/connect.js (classic script, window.GatewayConnect) and GET /sdk/connect.mjs (ES module, the same
 * functions as named exports), no auth: the browser SDK a customer's page loads from the gateway. A public
 * script without credentials, so any origin may load it (`Access-Control-Allow-Origin: *`, which a module
 * script loaded from another origin needs). Gzipped for a browser that takes it; cached five minutes, then revalidated by ETag. Not API routes,
 * so not in the OpenAPI documents, like /docs.
 */
export function sdkRoutes(assets: SdkAssets = loadSdkAssets()): Router<AppState> {
  const router = new Router<AppState>();
  const serve = (file: SdkAsset) => (ctx: Context) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('ETag', file.etag);
    ctx.set('Vary', 'Accept-Encoding');
    ctx.type = 'text/javascript; charset=utf-8';
    if (etagMatches(ctx.get('If-None-Match'), file.etag)) {
      ctx.status = 304;
      return;
    }
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = file.gzipped;
    } else {
      ctx.body = file.body;
    }
  };
  router.get('/sdk/connect.js', serve(assets.classic));
  router.get('/sdk/connect.mjs', serve(assets.module));
  return router;
}
