import Router from '@koa/router';
import { CONNECTION_FIELDS, CONNECTION_LIST_OPTIONS } from '../connections/connection-fields.ts';
import { connectableVersion, createConnection, deleteConnection, pickAuth } from '../connections/connections.ts';
import { connectionView } from '../connections/view.ts';
import { GatewayError, validationError } from '../errors/index.ts';
import { listPage } from '../query/list-page.ts';
import type { AppState } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { requireEndUserToken } from '../tokens/require-end-user-token.ts';
import { compileValidator } from '../validation/ajv.ts';
import { checkJsonSize, CREDENTIALS_MAX_BYTES, METADATA_MAX_BYTES } from '../validation/json-limits.ts';
import { connectApps, requireEnabledApp } from './apps.ts';
import { createOwnConnectionBody, type CreateOwnConnectionBody } from './schemas.ts';

const validateCreate = compileValidator<CreateOwnConnectionBody>(createOwnConnectionBody, 'body');

/**
 * /v2/end-user/* (end-user token): what an end user's embedded session (the
 * Connect page) reads and does on its own: the apps the company enabled, and
 * the end user's own connections. Another end user's connection, or the
 * company's, is as unknown as a missing one (404).
 */
export function endUserConnectionRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const endUser = requireEndUserToken(services);

  router.get('/v2/end-user/apps', endUser, async (ctx) => {
    const apps = await connectApps(services, ctx.state.endUser!.companyId);
    ctx.body = { success: true, data: apps, meta: { count: apps.length } };
  });

  router.get('/v2/end-user/connections', endUser, async (ctx) => {
    const { companyId, endUserId } = ctx.state.endUser!;
    ctx.body = await listPage(services.store.connections, { companyId, endUserId }, ctx.query, CONNECTION_FIELDS, CONNECTION_LIST_OPTIONS, connectionView);
  });

  router.post('/v2/end-user/connections', endUser, async (ctx) => {
    const { companyId, endUserId } = ctx.state.endUser!;
    const body = validateCreate(requireBody(ctx));
    checkJsonSize(body.metadata, 'metadata', METADATA_MAX_BYTES);
    checkJsonSize(body.credentials, 'credentials', CREDENTIALS_MAX_BYTES);
    await requireEnabledApp(services, companyId, body.appSlug);
    const auth = pickAuth(connectableVersion(services, body.appSlug), body.authId);
    if (auth.type === 'OAuth2AuthorizationCode') {
      throw validationError([
        { field: 'authId', rule: 'oauth2', message: `auth "${auth.id}" is OAuth2AuthorizationCode: it connects through the browser (GET /v2/connect/${body.appSlug}/authorize), not with credentials` },
      ]);
    }
    const record = await createConnection(services, companyId, { ...body, endUserId });
    ctx.status = 201;
    ctx.body = { success: true, data: connectionView(record) };
  });

  router.delete('/v2/end-user/connections/:connectionId', endUser, async (ctx) => {
    const { companyId, endUserId } = ctx.state.endUser!;
    const id = ctx.params.connectionId!;
    if (!(await services.store.connections.findOne({ id, companyId, endUserId }))) throw GatewayError.of('NOT_FOUND', `connection ${id} does not exist`);
    await deleteConnection(services, companyId, id);
    ctx.body = { success: true, data: { id, deleted: true } };
  });

  return router;
}
