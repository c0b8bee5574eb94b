import type { Middleware } from 'koa';
import { bearerToken } from './bearer.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { admitBrowserOrigin } from '../embedding/cors.ts';
import { verifyEndUserToken } from '../../tenancy/end-user-tokens/end-user-tokens.ts';
import { keyRingFor } from '../../tenancy/end-user-tokens/key-ring.ts';

/** One message for every way a token can be wrong: tampered, expired, foreign, an API key... */
export const END_USER_TOKEN_REJECTED =
  'a valid end-user token is required: send Authorization: Bearer <END_USER_TOKEN> from GET /v1/users/{userId}/token';

/**
 * For endpoints an end user's embedded session calls (the installation run
 * endpoint): admits a valid end-user token and sets `ctx.state.endUser`.
 * `expiredGraceSeconds`: one that ran out at most that long ago too (verifyEndUserToken).
 */
export function requireEndUserToken(services: Services, expiredGraceSeconds = 0): Middleware<AppState> {
  const { store, config, logger, keyring } = services;
  const ring = keyRingFor(store, keyring);
  return async (ctx, next) => {
    const token = bearerToken(ctx);
    const check = token === null ? { ok: false as const, reason: 'ERR_NO_BEARER' } : await verifyEndUserToken(ring, store, config.endUserTokens, token, expiredGraceSeconds);
    if (!check.ok) {
      // The reason (a jose error code or ours) helps an operator; the token itself is never logged.
      logger.info({ reqId: ctx.state.requestId, reason: check.reason }, 'end-user token refused');
      throw GatewayError.of('UNAUTHORIZED', END_USER_TOKEN_REJECTED);
    }
    ctx.state.endUser = {
      kind: 'endUser',
      companyId: check.endUser.companyId,
      endUserId: check.endUser.id,
      isTestUser: check.endUser.isTestUser,
      tokenId: check.claims.jti,
      expiresAt: check.claims.exp,
    };
    await admitBrowserOrigin(services, ctx, check.endUser.companyId);
    await next();
  };
}
