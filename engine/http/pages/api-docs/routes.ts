import Router from '@koa/router';
import type { Context } from 'koa';
import type { AppState } from '../../server/context.ts';
import { DOCS_PAGE, VIEWER_SCRIPT, VIEWER_STYLE } from './page.ts';
import { ViewerAssets } from './viewer-assets.ts';
import { etagMatches } from '../../server/etag.ts';

/**
 * Only this origin, for everything the page loads or sends; no inline script or style, no eval, no framing.
 * img-src also allows data: URLs, which Swagger UI's stylesheet uses for its icons (never a request).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function strictHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', DOCS_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
}

/**
 * GET /docs (no auth): the OpenAPI documents in Swagger UI, served from the installed swagger-ui-dist.
 * Not API routes, so not in the OpenAPI documents, like /health and /metrics.
 */
export function apiDocsRoutes(assets = new ViewerAssets()): Router<AppState> {
  const router = new Router<AppState>();
  const own = (type: string, body: string) => (ctx: Context) => {
    strictHeaders(ctx);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = type;
    ctx.body = body;
  };
  router.get('/docs', own('text/html; charset=utf-8', DOCS_PAGE));
  router.get('/docs/viewer.js', own('text/javascript; charset=utf-8', VIEWER_SCRIPT));
  router.get('/docs/viewer.css', own('text/css; charset=utf-8', VIEWER_STYLE));
  router.get('/docs/assets/:file', (ctx) => {
    const asset = assets.get(ctx.params.file!);
    if (!asset) return; // 404 NOT_FOUND, from the error envelope
    strictHeaders(ctx);
    // Revalidated by ETag (the package's version): a gateway upgraded to a new Swagger UI is seen at once.
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', asset.etag);
    ctx.set('Vary', 'Accept-Encoding');
    ctx.type = asset.type;
    if (etagMatches(ctx.get('If-None-Match'), asset.etag)) {
      ctx.status = 304;
      return;
    }
    if (asset.gzipped && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = asset.gzipped;
    } else {
      ctx.body = asset.body;
    }
  });
  return router;
}
