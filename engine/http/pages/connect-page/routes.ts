import Router from '@koa/router';
import type { AppContext, AppState } from '../../server/context.ts';
import type { Services } from '../../services.ts';
import { connectPageCsp, frameAncestors } from './csp.ts';
import { PageFiles } from './files.ts';
import { OAUTH_RETURN_PATH } from './own-origin.ts';
import { etagMatches } from '../../server/etag.ts';

/**
 * GET /connect (no auth: the page holds the end-user token, in its fragment or from its opener) and its files,
 * GET /connect/oauth-return (the OAuth flow's return page). Static files from web/connect/, each with a strict
 * CSP, nosniff, no referrer, and an ETag to revalidate (Cache-Control: no-cache). Not API routes, so not in the
 * OpenAPI documents, like /docs.
 */
export function connectPageRoutes(services: Services, files = new PageFiles()): Router<AppState> {
  const router = new Router<AppState>();

  const serve = (ctx: AppContext, name: string, ancestors: string) => {
    const file = files.get(name)!;
    // Only the page shows the company's logo (an https image of its own host).
    ctx.set('Content-Security-Policy', connectPageCsp(ancestors, { logo: name === 'index.html' }));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    // The page may be framed by one allowed origin; X-Frame-Options cannot say that, so it is sent only to forbid.
    if (ancestors === "'none'") ctx.set('X-Frame-Options', 'DENY');
    // No Cross-Origin-Opener-Policy: the SDK's page opens /connect in a popup and talks to it through window.opener.
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = file.type;
    ctx.set('ETag', file.etag);
    // Compared here rather than with ctx.fresh, which ignores the validator when the request says
    // Cache-Control: no-cache (as fetch() does with If-None-Match): the file is the same either way.
    if (etagMatches(ctx.get('If-None-Match'), file.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = file.body;
  };

  router.get('/connect', async (ctx) => serve(ctx, 'index.html', await frameAncestors(services.store, ctx.query.origin)));
  router.get(OAUTH_RETURN_PATH, (ctx) => serve(ctx, 'oauth-return.html', "'none'"));
  router.get('/connect/:file', async (ctx, next) => {
    const name = ctx.params.file!;
    // The pages have their own paths; an unknown name is the gateway's usual 404.
    if (name.endsWith('.html') || !files.get(name)) return await next();
    serve(ctx, name, "'none'");
  });
  return router;
}
