import { embeddingSettings, themeOf } from '../../tenancy/embedding/settings.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { EndUserPrincipal } from '../server/context.ts';
import type { Services } from '../services.ts';

/**
 * GET /v2/end-user/session: who the token is for ("Signed in as …" on the Connect page), the company's
 * allowed origins (the page answers an opener's postMessage only from one of them) and when the token
 * expires. Nothing of the company's configuration but its name and origins.
 */
export async function endUserSession(services: Services, endUser: EndUserPrincipal) {
  const [record, company, settings] = await Promise.all([
    services.store.endUsers.findOne({ id: endUser.endUserId, companyId: endUser.companyId }),
    services.store.companies.findOne({ id: endUser.companyId }),
    embeddingSettings(services.store, endUser.companyId),
  ]);
  // The token was checked against the end user a moment ago; gone since (deleted meanwhile): as any refused token.
  if (!record || !company) throw GatewayError.of('UNAUTHORIZED', 'the end user of this token no longer exists');
  return {
    endUserId: record.id,
    name: record.name,
    email: record.email,
    company: { name: company.name },
    allowedOrigins: [...settings.allowedOrigins],
    theme: themeOf(settings),
    expiresAt: new Date(endUser.expiresAt * 1000).toISOString(),
  };
}
