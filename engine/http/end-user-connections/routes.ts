import Router from '@koa/router';
import { CONNECTION_FIELDS, CONNECTION_LIST_OPTIONS } from '../../tenancy/connections/connection-fields.ts';
import { deleteConnection } from '../../tenancy/connections/connections.ts';
import { connectableVersion, createConnection, pickAuth } from '../../core/connections/connect.ts';
import { connectionView } from '../../tenancy/connections/view.ts';
import { GatewayError, validationError } from '../../platform/errors/index.ts';
import { listPage } from '../../platform/query/list-page.ts';
import { refuseUnknownQuery } from '../../platform/query/list-query.ts';
import type { AppState, EndUserPrincipal } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { requireEndUserToken } from '../guards/require-end-user-token.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import { connectApps, requireEnabledApp } from './apps.ts';
import { createOwnConnectionBody, reconnectOwnConnectionBody, type CreateOwnConnectionBody, type ReconnectOwnConnectionBody } from './schemas.ts';
import { endUserSession } from './session.ts';
import { startAuthorization } from '../connect/authorize.ts';
import { gatewayOrigins } from '../pages/connect-page/own-origin.ts';
import { updateConnection } from '../../core/connections/update-connection.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { ConnectAttempts } from '../../tenancy/end-users/connect-attempts.ts';
import { requireRoomForConnection } from '../../tenancy/end-users/connection-room.ts';

const validateCreate = compileValidator<CreateOwnConnectionBody>(createOwnConnectionBody, 'body');
const validateReconnect = compileValidator<ReconnectOwnConnectionBody>(reconnectOwnConnectionBody, 'body');

/**
 * /v2/end-user/* (end-user token): what an end user's embedded session (the
 * Connect page) reads and does on its own: the apps the company enabled, and
 * the end user's own connections. Another end user's connection, or the
 * company's, is as unknown as a missing one (404).
 */
export function endUserConnectionRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const endUser = requireEndUserToken(services);
  // Credentials an end user tries (each checked with the app): a bounded number a minute.
  const attempts = new ConnectAttempts(services.config.endUserTokens.connectAttemptsPerMinute);

  router.get('/v2/end-user/apps', endUser, async (ctx) => {
    refuseUnknownQuery(ctx.query);
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
    const { maxConnections } = services.config.endUserTokens;
    // Refused early here (before an attempt is taken and the credentials checked); held where it is stored.
    await requireRoomForConnection(services.store, companyId, endUserId, maxConnections);
    attempts.take(`${companyId}/${endUserId}`);
    await requireEnabledApp(services, companyId, body.appSlug);
    const auth = pickAuth(connectableVersion(services, body.appSlug), body.authId);
    if (auth.type === 'OAuth2AuthorizationCode') {
      throw validationError([
        { field: 'authId', rule: 'oauth2', message: `auth "${auth.id}" is OAuth2AuthorizationCode: it connects through the browser (GET /v2/connect/${body.appSlug}/authorize), not with credentials` },
      ]);
    }
    const record = await createConnection(services, companyId, { ...body, endUserId }, { maxConnections });
    ctx.status = 201;
    ctx.body = { success: true, data: connectionView(record) };
  });

  router.get('/v2/end-user/session', endUser, async (ctx) => {
    ctx.body = { success: true, data: await endUserSession(services, ctx.state.endUser!) };
  });

  // A reconnect of a form app (API key, basic, credentials): the same connection, new credentials, active again.
  router.patch('/v2/end-user/connections/:connectionId', endUser, async (ctx) => {
    const { companyId } = ctx.state.endUser!;
    const body = validateReconnect(requireBody(ctx));
    attempts.take(`${companyId}/${ctx.state.endUser!.endUserId}`);
    const own = await ownConnection(services, ctx.state.endUser!, ctx.params.connectionId!);
    await requireEnabledApp(services, companyId, own.appSlug);
    if (own.authType === 'OAuth2AuthorizationCode') {
      throw validationError([
        { field: 'credentials', rule: 'oauth2', message: `connection ${own.id} is an OAuth 2.0 authorization-code connection: it reconnects through the browser (GET /v2/end-user/connections/${own.id}/reauthorize), not with credentials` },
      ]);
    }
    const record = await updateConnection(services, companyId, own.id, { credentials: body.credentials, ...(body.metadata !== undefined ? { metadata: body.metadata } : {}) });
    ctx.body = { success: true, data: connectionView(record) };
  });

  // A reconnect of an OAuth app: the provider's consent again; the callback gives the SAME connection the new tokens.
  router.get('/v2/end-user/connections/:connectionId/reauthorize', endUser, async (ctx) => {
    const { companyId, endUserId } = ctx.state.endUser!;
    const own = await ownConnection(services, ctx.state.endUser!, ctx.params.connectionId!);
    await requireEnabledApp(services, companyId, own.appSlug);
    const returnUrl = typeof ctx.query.returnUrl === 'string' ? ctx.query.returnUrl : '';
    if (!returnUrl) throw validationError([{ field: 'returnUrl', rule: 'required', message: 'is required: where the browser goes when the connection is renewed' }]);
    if (own.authType !== 'OAuth2AuthorizationCode') {
      throw validationError([
        { field: 'connectionId', rule: 'oauth2', message: `connection ${own.id} is ${own.authType}: it reconnects with new credentials (PATCH /v2/end-user/connections/${own.id})` },
      ]);
    }
    ctx.body = {
      success: true,
      data: await startAuthorization(services, {
        companyId,
        appSlug: own.appSlug,
        authId: own.authId,
        endUserId,
        returnUrl,
        metadata: own.metadata,
        ownOrigins: gatewayOrigins(services.config, `${ctx.protocol}://${ctx.host}`, ctx.req.socket.localPort),
        connectionId: own.id,
        confirm: true,
      }),
    };
  });

  router.delete('/v2/end-user/connections/:connectionId', endUser, async (ctx) => {
    const { companyId } = ctx.state.endUser!;
    const { id } = await ownConnection(services, ctx.state.endUser!, ctx.params.connectionId!);
    await deleteConnection(services, companyId, id);
    ctx.body = { success: true, data: { id, deleted: true } };
  });

  return router;
}

/** One of the end user's own connections; another end user's, or the company's, is as unknown as a missing one (404). */
async function ownConnection(services: Services, endUser: EndUserPrincipal, id: string): Promise<ConnectionRecord> {
  const record = await services.store.connections.findOne({ id, companyId: endUser.companyId, endUserId: endUser.endUserId });
  if (!record) throw GatewayError.of('NOT_FOUND', `connection ${id} does not exist`);
  return record;
}
