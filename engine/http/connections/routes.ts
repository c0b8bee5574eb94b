import Router from '@koa/router';
import { requireApiKey } from '../guards/require-api-key.ts';
import { listPage } from '../../platform/query/list-page.ts';
import type { AppState } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import { CONNECTION_FIELDS, CONNECTION_LIST_OPTIONS } from '../../tenancy/connections/connection-fields.ts';
import { deleteConnection, findConnection } from '../../tenancy/connections/connections.ts';
import { createConnection } from '../../core/connections/connect.ts';
import { createConnectionBody, updateConnectionBody, type CreateConnectionBody, type UpdateConnectionBody } from '../../tenancy/connections/schemas.ts';
import { updateConnection } from '../../core/connections/update-connection.ts';
import { connectionView } from '../../tenancy/connections/view.ts';

const validateCreate = compileValidator<CreateConnectionBody>(createConnectionBody, 'body');
const validateUpdate = compileValidator<UpdateConnectionBody>(updateConnectionBody, 'body');

/**
 * /v2/connections (API key): a company's stored connections to app
 * accounts. Credentials go in on create (or PATCH) and never come out.
 */
export function connectionRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const apiKey = requireApiKey(services.store);

  router.post('/v2/connections', apiKey, async (ctx) => {
    const body = validateCreate(requireBody(ctx));
    const record = await createConnection(services, ctx.state.principal!.companyId, body);
    ctx.status = 201;
    ctx.body = { success: true, data: connectionView(record) };
  });

  router.get('/v2/connections', apiKey, async (ctx) => {
    ctx.body = await listPage(services.store.connections, { companyId: ctx.state.principal!.companyId }, ctx.query, CONNECTION_FIELDS, CONNECTION_LIST_OPTIONS, connectionView);
  });

  router.get('/v2/connections/:connectionId', apiKey, async (ctx) => {
    const record = await findConnection(services, ctx.state.principal!.companyId, ctx.params.connectionId!);
    ctx.body = { success: true, data: connectionView(record) };
  });

  router.patch('/v2/connections/:connectionId', apiKey, async (ctx) => {
    const body = validateUpdate(requireBody(ctx));
    const record = await updateConnection(services, ctx.state.principal!.companyId, ctx.params.connectionId!, body);
    ctx.body = { success: true, data: connectionView(record) };
  });

  router.delete('/v2/connections/:connectionId', apiKey, async (ctx) => {
    await deleteConnection(services, ctx.state.principal!.companyId, ctx.params.connectionId!);
    ctx.body = { success: true, data: { id: ctx.params.connectionId, deleted: true } };
  });

  return router;
}
