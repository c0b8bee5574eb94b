import type { Middleware } from 'koa';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { requireEndUserToken } from './require-end-user-token.ts';
import { admitApiKey } from './require-api-key.ts';

/**
 * For endpoints both a customer's backend (API key) and an end user's
 * embedded session (end-user token) call: an active API key sets
 * `principal`, anything else must be a valid end-user token (`endUser`),
 * or one expired at most `expiredGraceSeconds` ago (requireEndUserToken).
 */
export function requireApiKeyOrEndUserToken(services: Services, expiredGraceSeconds = 0): Middleware<AppState> {
  const endUser = requireEndUserToken(services, expiredGraceSeconds);
  return async (ctx, next) => {
    if (await admitApiKey(services.store, ctx)) return await next();
    await endUser(ctx, next);
  };
}
