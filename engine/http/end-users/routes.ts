import Router from '@koa/router';
import { GatewayError } from '../../platform/errors/index.ts';
import { listPage } from '../../platform/query/list-page.ts';
import type { AppState } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { requireApiKey } from '../guards/require-api-key.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import { checkJsonSize } from '../../platform/validation/json-limits.ts';
import { deleteEndUser } from '../../tenancy/end-users/delete-end-user.ts';
import { END_USER_FIELDS, END_USER_LIST_OPTIONS, endUserItem } from '../../tenancy/end-users/end-user-fields.ts';
import { createOrFindEndUser, findEndUser, updateEndUser } from '../../tenancy/end-users/end-users.ts';
import { createEndUserBody, METADATA_MAX_BYTES, updateEndUserBody, type CreateEndUserBody, type UpdateEndUserBody } from '../../tenancy/end-users/schemas.ts';

const validateCreate = compileValidator<CreateEndUserBody>(createEndUserBody, 'body');
const validateUpdate = compileValidator<UpdateEndUserBody>(updateEndUserBody, 'body');

/**
 * POST /v1/users creates an end user (GET /v1/users stays the company's
 * members); /v2/end-users lists, reads, updates and deletes them. Always
 * the API key's company's end users only: another company's id is 404.
 */
export function endUserRoutes(services: Services): Router<AppState> {
  const { store } = services;
  const router = new Router<AppState>();
  const apiKey = requireApiKey(store);

  /** POST /v1/users: 200 with the new end user's id, or the existing one's for a known externalId. */
  router.post('/v1/users', apiKey, async (ctx) => {
    if (ctx.state.body === undefined) {
      throw GatewayError.of('VALIDATION_ERROR', 'body: a JSON object is required', {
        problems: [{ field: 'body', rule: 'required', message: 'a JSON object is required' }],
      });
    }
    const body = validateCreate(ctx.state.body);
    checkJsonSize(body.metadata, 'metadata', METADATA_MAX_BYTES);
    const { endUser } = await createOrFindEndUser(store, ctx.state.principal!.companyId, body);
    ctx.body = { success: true, data: { userId: endUser.id } };
  });

  router.get('/v2/end-users', apiKey, async (ctx) => {
    ctx.body = await listPage(store.endUsers, { companyId: ctx.state.principal!.companyId }, ctx.query, END_USER_FIELDS, END_USER_LIST_OPTIONS, endUserItem);
  });

  router.get('/v2/end-users/:endUserId', apiKey, async (ctx) => {
    const endUser = await findEndUser(store, ctx.state.principal!.companyId, ctx.params.endUserId!);
    ctx.body = { success: true, data: endUserItem(endUser) };
  });

  router.patch('/v2/end-users/:endUserId', apiKey, async (ctx) => {
    const body = validateUpdate(requireBody(ctx));
    checkJsonSize(body.metadata, 'metadata', METADATA_MAX_BYTES);
    const endUser = await updateEndUser(store, ctx.state.principal!.companyId, ctx.params.endUserId!, body);
    ctx.body = { success: true, data: endUserItem(endUser) };
  });

  router.delete('/v2/end-users/:endUserId', apiKey, async (ctx) => {
    const endUserId = ctx.params.endUserId!;
    const result = await deleteEndUser(services, ctx.state.principal!.companyId, endUserId);
    ctx.body = { success: true, data: { id: endUserId, deleted: true, ...result } };
  });

  return router;
}
