import Router from '@koa/router';
import { resolveAction, resolveAppVersion } from '../../core/definitions/index.ts';
import { versionFrom } from '../../core/describe/version-query.ts';
import { requireEnabledApp } from '../end-user-connections/apps.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { observeRun } from '../observability/observe-run.ts';
import { abortOnClose, answer } from '../runs/routes.ts';
import { runAction } from '../../core/run/run-action.ts';
import { selectConnection } from '../../core/run/select-connection.ts';
import type { AppState } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { requireEndUserToken } from '../guards/require-end-user-token.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import { endUserRunBody, type EndUserRunBody } from './schemas.ts';

const validateRun = compileValidator<EndUserRunBody>(endUserRunBody, 'body');

/**
 * POST /v2/end-user/apps/{appSlug}/actions/{actionSlug}/run (end-user token):
 * an end user's page (the browser SDK's runAction) runs an action through one
 * of the end user's OWN connections, and gets exactly what the universal run
 * answers (the envelope, with its statuses). Another end user's connection,
 * or the company's (no endUserId), is as unknown as a missing one (404); only
 * an app the company enabled for end users (403 APP_NOT_ENABLED); a draft
 * version only for a test end user (as the v1 installation run).
 */
export function endUserRunRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();

  router.post('/v2/end-user/apps/:appSlug/actions/:actionSlug/run', requireEndUserToken(services), async (ctx) => {
    const body = validateRun(requireBody(ctx));
    const { companyId, endUserId } = ctx.state.endUser!;
    const appSlug = ctx.params.appSlug!;
    await requireEnabledApp(services, companyId, appSlug);
    const version = resolveAppVersion(services.definitions.current(), { slug: appSlug }, versionFrom(ctx.query).version);
    const action = resolveAction(version, { slug: ctx.params.actionSlug! });
    if (!(await services.store.connections.findOne({ id: body.connectionId, companyId, endUserId }))) {
      throw GatewayError.of('NOT_FOUND', `connection ${body.connectionId} does not exist`);
    }
    const selected = await selectConnection(services, companyId, version, { connectionId: body.connectionId });
    if (version.version === 'draft' && !selected.endUser?.isTestUser) {
      throw GatewayError.of('FORBIDDEN', 'draft versions run only for test end users (isTestUser: true); use published or a version number');
    }
    const start = { companyId, version, action, ...selected };
    answer(ctx, await observeRun(ctx, start, (facts) => runAction(services.run, { ...start, arguments: body.arguments ?? {}, signal: abortOnClose(ctx), facts })));
  });

  return router;
}
