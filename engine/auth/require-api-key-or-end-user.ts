import type { Middleware } from 'koa';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { requireEndUserToken } from '../tokens/require-end-user-token.ts';
import { findActiveApiKey } from './api-keys.ts';
import { bearerToken } from './bearer.ts';
import { requireApiKey } from './require-api-key.ts';

/**
 * For endpoints both a customer's backend (API key) and an end user's
 * embedded session (end-user token) call: an active API key sets
 * `principal`, anything else must be a valid end-user token (`endUser`).
 */
export function requireApiKeyOrEndUserToken(services: Services): Middleware<AppState> {
  const apiKey = requireApiKey(services.store);
  const endUser = requireEndUserToken(services);
  return async (ctx, next) => {
    const token = bearerToken(ctx);
    const isApiKey = token !== null && (await findActiveApiKey(services.store, token)) !== null;
    await (isApiKey ? apiKey : endUser)(ctx, next);
  };
}
