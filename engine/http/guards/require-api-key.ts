import type { Middleware, Next } from 'koa';
import { GatewayError } from '../../platform/errors/index.ts';
import type { AppContext, AppState } from '../server/context.ts';
import type { ApiKeyRecord, Store } from '../../platform/store/index.ts';
import { findActiveApiKey, recentActiveApiKey } from '../../tenancy/api-keys/api-keys.ts';
import { bearerToken } from './bearer.ts';

/** One message for every way a key can be wrong, so a caller learns nothing from the difference. */
export const API_KEY_REJECTED = 'a valid API key is required: send Authorization: Bearer <API_KEY>';

export function requireApiKey(store: Store): Middleware<AppState> {
  return (ctx, next) => {
    // A key found recently (and nothing revoked since) is admitted at once; any other asks the store.
    const token = bearerToken(ctx);
    const recent = token === null ? undefined : recentActiveApiKey(store, token);
    if (recent) {
      admit(ctx, recent);
      return next();
    }
    return admitOrRefuse(store, ctx, next);
  };
}

async function admitOrRefuse(store: Store, ctx: AppContext, next: Next): Promise<void> {
  if (!(await admitApiKey(store, ctx))) throw GatewayError.of('UNAUTHORIZED', API_KEY_REJECTED);
  await next();
}

/** Sets `principal` when the request's bearer token is an active API key; false otherwise. */
export async function admitApiKey(store: Store, ctx: AppContext): Promise<boolean> {
  const token = bearerToken(ctx);
  const record = token === null ? null : await findActiveApiKey(store, token);
  if (!record) return false;
  admit(ctx, record);
  return true;
}

function admit(ctx: AppContext, record: ApiKeyRecord): void {
  ctx.state.principal = { kind: 'apiKey', companyId: record.companyId, userId: record.userId, apiKeyId: record.id };
}
