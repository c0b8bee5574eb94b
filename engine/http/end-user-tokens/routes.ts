import Router from '@koa/router';
import { requireApiKey } from '../guards/require-api-key.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { issueEndUserToken } from '../../tenancy/end-user-tokens/end-user-tokens.ts';
import { keyRingFor } from '../../tenancy/end-user-tokens/key-ring.ts';
import { endUserIdParameter } from './schemas.ts';

const validateUserId = compileValidator<string>(endUserIdParameter, 'userId');

/**
 * GET /v1/users/{userId}/token (API key): a fresh end-user token, answered
 * as `{ token }` without the success wrapper. GET /.well-known/jwks.json (no
 * auth): the public keys that verify those tokens.
 */
export function tokenRoutes({ store, config, keyring }: Services): Router<AppState> {
  const router = new Router<AppState>();
  const ring = keyRingFor(store, keyring);

  router.get('/v1/users/:userId/token', requireApiKey(store), async (ctx) => {
    const userId = validateUserId((ctx.params as { userId: string }).userId);
    // Another company's end user is as unknown as one that never existed.
    const endUser = await store.endUsers.findOne({ id: userId, companyId: ctx.state.principal!.companyId });
    if (!endUser) throw GatewayError.of('NOT_FOUND', `no end user ${userId} in your company`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { token: await issueEndUserToken(ring, config.endUserTokens, endUser) };
  });

  router.get('/.well-known/jwks.json', async (ctx) => {
    // Verifiers cache this briefly; a new kid they have not seen yet makes them fetch again.
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = await ring.publicKeySet();
  });

  return router;
}
