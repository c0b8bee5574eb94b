import Router from '@koa/router';
import { GatewayError } from '../errors/index.ts';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { requireApiKey } from '../auth/require-api-key.ts';
import { compileValidator } from '../validation/ajv.ts';
import { checkJsonSize } from '../validation/json-limits.ts';
import { createOrFindEndUser } from './end-users.ts';
import { createEndUserBody, METADATA_MAX_BYTES, type CreateEndUserBody } from './schemas.ts';

const validateCreate = compileValidator<CreateEndUserBody>(createEndUserBody, 'body');

export function endUserRoutes({ store }: Services): Router<AppState> {
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

  return router;
}
