import type { EndUserRecord } from '../../platform/store/index.ts';
import { findActiveApiKey, recentActiveApiKey } from '../../tenancy/api-keys/api-keys.ts';
import { verifyEndUserToken } from '../../tenancy/end-user-tokens/end-user-tokens.ts';
import { keyRingFor } from '../../tenancy/end-user-tokens/key-ring.ts';
import type { McpServices } from '../mcp-services.ts';

/** Who is asking: a company's backend (API key) or one of its end users (end-user token). */
export type Caller = { kind: 'apiKey'; companyId: string } | { kind: 'endUser'; companyId: string; endUser: EndUserRecord; /** When the token expires (its exp), ms since the epoch. */ expiresAt: number };

/**
 * The caller a bearer token stands for, checked as the REST guards check it
 * (tenancy/api-keys, tenancy/end-user-tokens): an active API key, else a
 * valid end-user token; null for anything else. Why a token was refused is
 * logged (never the token); the caller hears one answer for every reason.
 */
export async function callerOf(services: McpServices, token: string | null, requestId: string): Promise<Caller | null> {
  if (token === null) return null;
  const key = recentActiveApiKey(services.store, token) ?? (await findActiveApiKey(services.store, token));
  if (key) return { kind: 'apiKey', companyId: key.companyId };
  const check = await verifyEndUserToken(keyRingFor(services.store, services.keyring), services.store, services.config.endUserTokens, token);
  if (check.ok) return { kind: 'endUser', companyId: check.endUser.companyId, endUser: check.endUser, expiresAt: check.claims.exp * 1000 };
  services.logger.info({ reqId: requestId, reason: check.reason }, 'mcp: bearer token refused');
  return null;
}
