import Router from '@koa/router';
import { requireApiKey } from '../guards/require-api-key.ts';
import { resolveAction, resolveAppVersion } from '../../core/definitions/index.ts';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { argumentOptions } from '../../core/describe/argument-options.ts';
import { describeAction, describeApp, summarizeAction } from '../../core/describe/descriptions.ts';
import { versionFrom } from '../../core/describe/version-query.ts';
import { refuseUnknownQuery } from '../../platform/query/list-query.ts';

/**
 * What workflow builders read to offer an app's actions (API key): the apps,
 * an app version's actions, one action with every argument, and the options
 * of a List argument. All read the live snapshot once per request and answer
 * the envelope { success, data: [...], meta }.
 *
 *   GET  /v2/universal/apps
 *   GET  /v2/universal/apps/{appSlug}/actions?version=published|draft|<n>
 *   GET  /v2/universal/apps/{appSlug}/actions/{actionSlug}?version=...
 *   POST /v2/universal/apps/{appSlug}/actions/{actionSlug}/arguments/{key}/options?version=...  { connectionId, arguments, search, cursor }
 */
export function describeRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/v2/universal/apps' });
  const apiKey = requireApiKey(services.store);

  router.get('/', apiKey, (ctx) => {
    refuseUnknownQuery(ctx.query);
    const snapshot = services.definitions.current();
    const apps = [...snapshot.apps.values()].map(describeApp).sort((a, b) => a.slug.localeCompare(b.slug));
    ctx.body = { success: true, data: apps, meta: { count: apps.length, definitionsHash: snapshot.hash } };
  });

  router.get('/:appSlug/actions', apiKey, (ctx) => {
    refuseUnknownQuery(ctx.query, ['version']);
    const { version: asked } = versionFrom(ctx.query);
    const version = resolveAppVersion(services.definitions.current(), { slug: ctx.params.appSlug! }, asked);
    const actions = [...version.actions.values()].map((a) => summarizeAction(a, version)).sort((a, b) => a.slug.localeCompare(b.slug));
    ctx.body = { success: true, data: actions, meta: { app: version.app, version: version.version, count: actions.length } };
  });

  router.get('/:appSlug/actions/:actionSlug', apiKey, (ctx) => {
    const { version: asked, suffix } = versionFrom(ctx.query);
    const version = resolveAppVersion(services.definitions.current(), { slug: ctx.params.appSlug! }, asked);
    const action = resolveAction(version, { slug: ctx.params.actionSlug! });
    ctx.body = { success: true, data: [describeAction(action, version, suffix)], meta: { app: version.app, version: version.version } };
  });

  router.post('/:appSlug/actions/:actionSlug/arguments/:key/options', apiKey, async (ctx) => {
    const { version: asked } = versionFrom(ctx.query);
    const version = resolveAppVersion(services.definitions.current(), { slug: ctx.params.appSlug! }, asked);
    const action = resolveAction(version, { slug: ctx.params.actionSlug! });
    const { argument, options, cursor, searched } = await argumentOptions({
      version,
      action,
      key: ctx.params.key!,
      body: ctx.state.body,
      companyId: ctx.state.principal!.companyId,
      runAction: services.runAction,
    });
    ctx.body = {
      success: true,
      data: options,
      meta: {
        app: version.app,
        version: version.version,
        action: action.slug,
        argument: argument.key,
        listType: argument.list!.type,
        count: options.length,
        ...(cursor !== undefined ? { cursor } : {}),
        ...(searched !== undefined ? { searched } : {}),
      },
    };
  });

  return router;
}
