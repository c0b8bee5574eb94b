import Router from '@koa/router';
import { AppIcons } from '../../core/describe/app-icon.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { AppState } from '../server/context.ts';
import { etagMatches } from '../server/etag.ts';
import type { Services } from '../services.ts';

/** Where an app's icon is served, as the end-user apps listing and the catalogue give it. */
export const iconPath = (appSlug: string) => `/v2/apps/${encodeURIComponent(appSlug)}/icon`;

/**
 * GET /v2/apps/{appSlug}/icon (no auth: an <img> cannot send a token, and
 * an icon is a public brand mark): the icon.svg of a loaded app's folder
 * (npm run icons), or a monogram of its name when it has none. Served as
 * image/svg+xml with a CSP that lets nothing in it run or load, nosniff, and
 * an ETag; an unknown app is 404 APP_NOT_FOUND.
 */
export function iconRoutes(services: Services, icons = new AppIcons()): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/v2/apps/:appSlug/icon', (ctx) => {
    const app = services.definitions.current().appsBySlug.get(ctx.params.appSlug!);
    if (!app) throw GatewayError.of('APP_NOT_FOUND', `no app with slug "${ctx.params.appSlug}"`);
    const icon = icons.icon(services.definitions.dir, app.file.split('/')[0]!, app.name);
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('ETag', icon.etag);
    if (etagMatches(ctx.get('If-None-Match'), icon.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'image/svg+xml';
    ctx.body = icon.svg;
  });
  return router;
}
