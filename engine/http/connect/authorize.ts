import { requireAppConfiguration } from '../../tenancy/app-configurations/app-configurations.ts';
import { seal } from '../../platform/crypto/cipher.ts';
import { checkValues } from '../../core/connections/check-values.ts';
import { requireEndUser } from '../../tenancy/connections/connections.ts';
import { connectableVersion, pickAuth } from '../../core/connections/connect.ts';
import type { AuthEntry } from '../../core/definitions/index.ts';
import type { OAuth2AuthorizationCodeAuth } from '../../core/definitions/generated/definition-types.ts';
import { embeddingSettings } from '../../tenancy/embedding/settings.ts';
import { isOwnReturnPage } from '../pages/connect-page/own-origin.ts';
import { originOf } from '../../tenancy/embedding/origins.ts';
import { GatewayError, validationError } from '../../platform/errors/index.ts';
import type { Services } from '../services.ts';
import { signState, STATE_LIFETIME_SECONDS } from './oauth-state.ts';
import { createPkcePair } from './pkce.ts';
import { makeRoomUnderWay } from './under-way.ts';
import { fillTemplate } from '../../core/oauth/templates.ts';
import { authUrl } from '../../core/oauth/auth-url-overrides.ts';
import { authorizationMetadataKeys } from '../../core/oauth/post-authorization.ts';

export interface AuthorizeRequest {
  companyId: string;
  appSlug: string;
  authId: string | undefined;
  endUserId: string | null;
  returnUrl: string;
  metadata: Record<string, unknown>;
  /** The gateway's own origins (gatewayOrigins): its /connect/oauth-return page is a return URL without any setting. */
  ownOrigins: readonly string[];
  /** A reconnect: the connection (of this company, and this end user when there is one) that gets the new tokens. */
  connectionId?: string;
  /** The callback stores nothing until the starter confirms (oauth-state.ts): always for an end user's own session, for the backend when it asked (`confirm=true`). */
  confirm: boolean;
}

/** The auth of an app that connects through the browser, or a 400 saying why this one does not. */
export function oauthAuth(auth: AuthEntry): OAuth2AuthorizationCodeAuth {
  if (auth.type !== 'OAuth2AuthorizationCode') {
    throw validationError([{ field: 'authId', rule: 'oauth2', message: `auth "${auth.id}" is ${auth.type}; only OAuth2AuthorizationCode auths connect through the browser (create the connection with POST /v2/connections, or with POST /v2/end-user/connections from an end-user token)` }]);
  }
  return auth.definition as OAuth2AuthorizationCodeAuth;
}

export function redirectUri(services: Services, configured: string | null): string {
  return configured ?? `${services.config.publicBaseUrl}/v2/connect/callback`;
}

/**
 * Starts an OAuth 2.0 authorization: a pending authorization in the store
 * (with the PKCE verifier, sealed) and the provider URL to send the browser
 * to, carrying a signed, short-lived state that names it.
 */
export async function startAuthorization(services: Services, request: AuthorizeRequest): Promise<{ authorizationUrl: string; expiresAt: string }> {
  const version = connectableVersion(services, request.appSlug);
  const auth = pickAuth(version, request.authId);
  const definition = oauthAuth(auth);
  if (!/^https?:\/\/[^\s]+$/.test(request.returnUrl) || !URL.canParse(request.returnUrl)) {
    throw validationError([{ field: 'returnUrl', rule: 'url', message: 'must be an absolute http(s) URL' }]);
  }
  if (!isOwnReturnPage(request.returnUrl, request.ownOrigins)) await requireAllowedReturnUrl(services, request.companyId, request.returnUrl);
  if (request.endUserId) await requireEndUser(services, request.companyId, request.endUserId);
  // What the provider gives when the authorization completes (QuickBooks' realmId, Xero's tenantId) is not asked of anyone before.
  const obtained = new Set(authorizationMetadataKeys(auth));
  const problems = checkValues('metadata', request.metadata, version.api.arguments.filter((arg) => !obtained.has(arg.key)), { strict: false });
  if (problems.length) throw validationError(problems);
  const configuration = await requireAppConfiguration(services, request.companyId, request.appSlug);
  if (!configuration.clientId) {
    throw GatewayError.of('APP_NOT_CONFIGURED', `app "${request.appSlug}" has no OAuth clientId for your company: PUT /v2/apps/${request.appSlug}/configuration`);
  }

  const now = Date.now();
  const { token, id } = await signState(
    services.keyring,
    { companyId: request.companyId, appSlug: request.appSlug, authId: auth.id, endUserId: request.endUserId, returnUrl: request.returnUrl, connectionId: request.connectionId ?? null, confirm: request.confirm },
    now,
  );
  const pkce = definition.pkce ? createPkcePair() : null;
  const expiresAt = new Date(now + STATE_LIFETIME_SECONDS * 1000);
  await services.store.pendingAuthorizations.deleteMany({ expiresAt: { $lt: new Date(now) } });
  if (request.endUserId) await makeRoomUnderWay(services, request.companyId, request.endUserId, 'authorization', now);
  await services.store.pendingAuthorizations.insert({
    id,
    companyId: request.companyId,
    appSlug: request.appSlug,
    authId: auth.id,
    endUserId: request.endUserId,
    metadata: request.metadata,
    secrets: seal(services.keyring, id, pkce ? { codeVerifier: pkce.verifier } : {}),
    expiresAt,
    createdOn: new Date(now),
  });

  const authorizeUrl = authUrl(services.run.settings.appAuthUrls, request.appSlug, 'authorizeUrl', definition.authorizeUrl);
  const url = new URL(fillTemplate(authorizeUrl, request.metadata, `auth ${auth.id} authorizeUrl`));
  const params = url.searchParams;
  for (const [name, value] of Object.entries(definition.authorizeParams ?? {})) params.set(name, String(value));
  params.set('response_type', 'code');
  params.set('client_id', configuration.clientId);
  params.set('redirect_uri', redirectUri(services, configuration.redirectUri));
  if (definition.scopes?.length) params.set('scope', definition.scopes.join(definition.scopeSeparator ?? ' '));
  params.set('state', token);
  if (pkce) {
    params.set('code_challenge', pkce.challenge);
    params.set('code_challenge_method', pkce.method);
  }
  return { authorizationUrl: url.toString(), expiresAt: expiresAt.toISOString() };
}

/**
 * The callback redirects the browser to the return URL with the outcome
 * (a connection id, or the provider's error): only to a page on one of the
 * company's allowed origins (or the gateway's own return page, checked
 * before), or anyone could be sent anywhere (an open redirect).
 */
/** Whether the return URL is on one of the company's allowed origins now. */
export async function isAllowedReturnUrl(services: Services, companyId: string, returnUrl: string): Promise<boolean> {
  const origin = originOf(returnUrl);
  return origin !== null && (await embeddingSettings(services.store, companyId)).allowedOrigins.includes(origin);
}

async function requireAllowedReturnUrl(services: Services, companyId: string, returnUrl: string): Promise<void> {
  const { allowedOrigins } = await embeddingSettings(services.store, companyId);
  const origin = originOf(returnUrl);
  if (origin !== null && allowedOrigins.includes(origin)) return;
  const allowed = allowedOrigins.length ? `one of ${allowedOrigins.join(', ')}` : 'none yet';
  throw validationError([
    { field: 'returnUrl', rule: 'origin', message: `must be on one of your allowed origins (the allowedOrigins of PUT /v2/embedding: ${allowed}); ${origin ?? 'its origin'} is not` },
  ]);
}
