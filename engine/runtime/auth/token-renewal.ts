import { requireAppConfiguration } from '../../app-configurations/app-configurations.ts';
import type { AppConfigurationSecrets } from '../../app-configurations/schemas.ts';
import { requestTokens, type TokenResponse } from '../../connect/token-endpoint.ts';
import { fillTemplate } from '../../connect/templates.ts';
import type { ConnectionSecrets } from '../../connections/connections.ts';
import { open, seal } from '../../credentials/cipher.ts';
import type { AuthEntry } from '../../definitions/index.ts';
import type { OAuth2AuthorizationCodeAuth, OAuth2ClientCredentialsAuth } from '../../definitions/generated/definition-types.ts';
import { GatewayError } from '../../errors/index.ts';
import type { Services } from '../../services.ts';
import type { ConnectionRecord } from '../../store/index.ts';

/** Seconds before expiry at which a token counts as expired, so it does not lapse in flight. */
export const EXPIRY_SKEW_MS = 30_000;

const inFlight = new Map<string, Promise<ConnectionRecord>>();

export function tokenExpired(connection: ConnectionRecord, now = Date.now()): boolean {
  return connection.tokenExpiresAt !== null && connection.tokenExpiresAt.getTime() - EXPIRY_SKEW_MS <= now;
}

/**
 * A new access token for an OAuth 2.0 connection: by its refresh token
 * (authorization code) or by its client credentials. Single-flight per
 * connection in this process: concurrent runs wait for the one renewal.
 * Across gateway instances the store is the referee: the new credentials
 * are written with a compare-and-set on `credentialsVersion`, and a loser
 * (or a run that started before someone else's renewal) takes the winner's
 * token instead of renewing again.
 */
export function renewToken(services: Services, connection: ConnectionRecord, auth: AuthEntry): Promise<ConnectionRecord> {
  let renewal = inFlight.get(connection.id);
  if (!renewal) {
    renewal = renew(services, connection, auth).finally(() => inFlight.delete(connection.id));
    inFlight.set(connection.id, renewal);
  }
  return renewal;
}

async function renew(services: Services, seen: ConnectionRecord, auth: AuthEntry): Promise<ConnectionRecord> {
  const { store, keyring } = services;
  const fresh = await store.connections.findOne({ id: seen.id, companyId: seen.companyId });
  if (!fresh) throw GatewayError.of('NOT_FOUND', `connection ${seen.id} does not exist`);
  if (fresh.credentialsVersion > seen.credentialsVersion && fresh.status === 'active') return fresh;
  const secrets = open<ConnectionSecrets>(keyring, fresh.id, fresh.credentials);

  let tokens: TokenResponse;
  try {
    tokens = await requestNewTokens(services, fresh, auth, secrets);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    await store.connections.updateOne(
      { id: fresh.id, credentialsVersion: fresh.credentialsVersion },
      { $set: { status: 'needs_reauthorization', updatedOn: new Date() }, $inc: { credentialsVersion: 1 } },
    );
    throw GatewayError.of('AUTH_REFRESH_FAILED', `connection ${fresh.id} could not renew its access token (${error.message}); it needs to be authorized again`);
  }

  const renewed: ConnectionSecrets = { ...secrets, accessToken: tokens.accessToken, ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}) };
  const update = {
    credentials: seal(keyring, fresh.id, renewed),
    tokenExpiresAt: tokens.expiresIn ? new Date(Date.now() + tokens.expiresIn * 1000) : null,
    status: 'active' as const,
    updatedOn: new Date(),
  };
  const won = await store.connections.updateOne({ id: fresh.id, credentialsVersion: fresh.credentialsVersion }, { $set: update, $inc: { credentialsVersion: 1 } });
  if (won) return { ...fresh, ...update, credentialsVersion: fresh.credentialsVersion + 1 };
  // Another instance renewed first: its token is as good, and renewing again could revoke it.
  const winner = await store.connections.findOne({ id: fresh.id });
  if (!winner || winner.status !== 'active') throw GatewayError.of('AUTH_REFRESH_FAILED', `connection ${fresh.id} needs to be authorized again`);
  return winner;
}

async function requestNewTokens(services: Services, connection: ConnectionRecord, auth: AuthEntry, secrets: ConnectionSecrets): Promise<TokenResponse> {
  if (auth.type === 'OAuth2ClientCredentials') {
    const definition = auth.definition as OAuth2ClientCredentialsAuth;
    const form: Record<string, string> = { grant_type: 'client_credentials' };
    if (definition.scopes?.length) form.scope = definition.scopes.join(definition.scopeSeparator ?? ' ');
    const headers: Record<string, string> = {};
    if ((definition.clientAuthentication ?? 'Header') === 'Header') {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(secrets.clientId ?? '')}:${encodeURIComponent(secrets.clientSecret ?? '')}`).toString('base64')}`;
    } else {
      form.client_id = secrets.clientId ?? '';
      form.client_secret = secrets.clientSecret ?? '';
    }
    return await requestTokens(services.http, fillTemplate(definition.tokenUrl, connection.metadata, `auth ${auth.id} tokenUrl`), form, headers);
  }
  if (auth.type === 'OAuth2AuthorizationCode') {
    const definition = auth.definition as OAuth2AuthorizationCodeAuth;
    if (definition.refresh?.enabled === false) throw GatewayError.of('TOKEN_EXCHANGE_FAILED', 'the app does not refresh tokens');
    if (!secrets.refreshToken) throw GatewayError.of('TOKEN_EXCHANGE_FAILED', 'the connection has no refresh token');
    const configuration = await requireAppConfiguration(services, connection.companyId, connection.appSlug);
    const appSecrets = open<AppConfigurationSecrets>(services.keyring, configuration.id, configuration.secrets);
    const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: secrets.refreshToken };
    if (configuration.clientId) form.client_id = configuration.clientId;
    if (appSecrets.clientSecret) form.client_secret = appSecrets.clientSecret;
    return await requestTokens(services.http, fillTemplate(definition.refresh?.url ?? definition.tokenUrl, connection.metadata, `auth ${auth.id} refresh url`), form);
  }
  throw GatewayError.of('TOKEN_EXCHANGE_FAILED', `a ${auth.type} auth has no token to renew`);
}
