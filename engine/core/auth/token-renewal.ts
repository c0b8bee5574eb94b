import { requestTokens, TokenEndpointError, type TokenResponse } from '../oauth/token-endpoint.ts';
import { fillTemplate } from '../oauth/templates.ts';
import { authenticateClient } from '../oauth/client-authentication.ts';
import { authUrl, writtenRefreshUrl } from '../oauth/auth-url-overrides.ts';
import type { ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import { open, seal } from '../../platform/crypto/cipher.ts';
import type { AuthEntry } from '../definitions/index.ts';
import type { OAuth2AuthorizationCodeAuth, OAuth2ClientCredentialsAuth } from '../definitions/generated/definition-types.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { CallStop } from '../../platform/outbound/index.ts';
import { observeRenewal } from './token-renewals.ts';
import { parseRetryAfter, sleep } from '../run/rate-limit.ts';
import type { RunServices } from '../run/run-services.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { classifyTokenFailure, UnrenewableError } from './token-failure.ts';
import { DEFAULT_TOKEN_RETRY, tokenRetryDelayMs } from './token-retry.ts';
import { traceRenewal } from '../../platform/tracing/index.ts';

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
 * Across gateway instances too: the renewal is claimed with a
 * compare-and-set that sets a lease on the connection (`renewingUntil`,
 * TOKEN_RETRY_BUDGET_MS plus a margin); the instance that wins calls the
 * token endpoint, the others poll the connection until its token is written
 * (or the claim is released after a failure, or its lease runs out because
 * that instance died, and then one of them renews). The new credentials are
 * still written with a compare-and-set on `credentialsVersion`, so a run
 * that started before someone else's renewal takes the winner's token.
 */
export function renewToken(services: RunServices, connection: ConnectionRecord, auth: AuthEntry): Promise<ConnectionRecord> {
  let renewal = inFlight.get(connection.id);
  if (!renewal) {
    renewal = observeRenewal(services.metrics, connection.appSlug, traceRenewal(connection, auth, () => renew(services, connection, auth))).finally(() => inFlight.delete(connection.id));
    inFlight.set(connection.id, renewal);
  }
  return renewal;
}

/** How long past TOKEN_RETRY_BUDGET_MS a claimed renewal holds the connection: a gateway that died while renewing lets it go after this. */
export const RENEWAL_LEASE_MARGIN_MS = 5_000;
/** How often a gateway waiting for another's renewal looks at the connection. */
export const RENEWAL_WAIT_POLL_MS = 100;

async function renew(services: RunServices, seen: ConnectionRecord, auth: AuthEntry): Promise<ConnectionRecord> {
  const { tokens: store } = services;
  const budgetMs = (services.settings.tokenRetry ?? DEFAULT_TOKEN_RETRY).budgetMs;
  for (;;) {
    const fresh = await store.current(seen);
    if (!fresh) throw GatewayError.of('NOT_FOUND', `connection ${seen.id} does not exist`);
    if (fresh.credentialsVersion > seen.credentialsVersion && fresh.status === 'active') return fresh;
    // Single-flight across gateways: the one whose claim wins calls the token endpoint; the others wait for its token.
    if (await store.claimRenewal(fresh, new Date(Date.now() + budgetMs + RENEWAL_LEASE_MARGIN_MS))) {
      try {
        return await renewClaimed(services, fresh, auth);
      } catch (error) {
        await store.releaseRenewal(fresh).catch(() => {});
        throw error;
      }
    }
    const settled = await waitForRenewal(services, fresh, auth, budgetMs + RENEWAL_LEASE_MARGIN_MS);
    if (settled) return settled;
    // The other renewal's lease ran out without a token (its gateway died): try to take it.
    seen = fresh;
  }
}

/** Waits for the renewal another gateway holds: its token, or null once its lease has passed without one. */
async function waitForRenewal(services: RunServices, claimed: ConnectionRecord, auth: AuthEntry, leaseMs: number): Promise<ConnectionRecord | null> {
  const deadline = Date.now() + leaseMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, RENEWAL_WAIT_POLL_MS));
    const now = await services.tokens.current(claimed);
    if (!now) throw GatewayError.of('NOT_FOUND', `connection ${claimed.id} does not exist`);
    if (now.credentialsVersion > claimed.credentialsVersion) {
      if (now.status === 'active') return now;
      throw GatewayError.of('AUTH_REFRESH_FAILED', grantLostMessage(now, auth, 'another instance found the grant gone'));
    }
    // Released (the other's token call failed): this one may renew now.
    if (!now.renewingUntil || now.renewingUntil.getTime() < Date.now()) return null;
  }
  return null;
}

async function renewClaimed(services: RunServices, fresh: ConnectionRecord, auth: AuthEntry): Promise<ConnectionRecord> {
  const { tokens: store, keyring } = services;
  const secrets = open<ConnectionSecrets>(keyring, fresh.id, fresh.credentials);

  let tokens: TokenResponse;
  try {
    tokens = await withRetries(services, fresh, auth, (signal) => requestNewTokens(services, fresh, auth, secrets, signal));
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    if (classifyTokenFailure(error, grantRevokedErrors(auth)) !== 'grant-lost') {
      if (error.code !== 'TOKEN_EXCHANGE_FAILED') throw error;
      throw GatewayError.of('TOKEN_EXCHANGE_FAILED', `connection ${fresh.id} could not renew its access token (${error.message}); the connection stays active`, error.details);
    }
    await store.markNeedsReauthorization(fresh);
    throw GatewayError.of('AUTH_REFRESH_FAILED', grantLostMessage(fresh, auth, error.message), error.details);
  }

  const renewed: ConnectionSecrets = { ...secrets, accessToken: tokens.accessToken, ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}) };
  const written = await store.saveRenewed(fresh, {
    credentials: seal(keyring, fresh.id, renewed),
    tokenExpiresAt: tokens.expiresIn ? new Date(services.clock.now() + tokens.expiresIn * 1000) : null,
  });
  if (written) return written;
  // Another instance renewed first: its token is as good, and renewing again could revoke it.
  const winner = await store.current(fresh);
  // Deleted meanwhile (by a request on this gateway or another): gone, as a run of it after the delete answers.
  if (!winner) throw GatewayError.of('NOT_FOUND', `connection ${fresh.id} does not exist`);
  if (winner.status !== 'active') throw GatewayError.of('AUTH_REFRESH_FAILED', grantLostMessage(fresh, auth, 'another instance found the grant gone'));
  return winner;
}

async function requestNewTokens(services: RunServices, connection: ConnectionRecord, auth: AuthEntry, secrets: ConnectionSecrets, signal: CallStop): Promise<TokenResponse> {
  if (auth.type === 'OAuth2ClientCredentials') {
    const definition = auth.definition as OAuth2ClientCredentialsAuth;
    const form: Record<string, string> = { grant_type: 'client_credentials' };
    if (definition.scopes?.length) form.scope = definition.scopes.join(definition.scopeSeparator ?? ' ');
    const headers: Record<string, string> = {};
    authenticateClient(definition.clientAuthentication ?? 'Header', secrets.clientId ?? '', secrets.clientSecret, form, headers);
    const tokenUrl = authUrl(services.settings.appAuthUrls, connection.appSlug, 'tokenUrl', definition.tokenUrl);
    return await requestTokens(services.http, fillTemplate(tokenUrl, connection.metadata, `auth ${auth.id} tokenUrl`), form, headers, {
      signal,
      secrets: [secrets.clientSecret ?? ''],
    });
  }
  if (auth.type === 'OAuth2AuthorizationCode') {
    const definition = auth.definition as OAuth2AuthorizationCodeAuth;
    if (definition.refresh?.enabled === false) throw new UnrenewableError('the app does not refresh tokens');
    if (!secrets.refreshToken) throw new UnrenewableError('the connection has no refresh token');
    const configuration = await services.appConfigurations.require(connection.companyId, connection.appSlug);
    const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: secrets.refreshToken };
    const headers: Record<string, string> = {};
    authenticateClient(definition.clientAuthentication ?? 'Body', configuration.clientId ?? '', configuration.clientSecret, form, headers);
    const refreshUrl = authUrl(services.settings.appAuthUrls, connection.appSlug, 'refreshUrl', writtenRefreshUrl(auth));
    return await requestTokens(services.http, fillTemplate(refreshUrl, connection.metadata, `auth ${auth.id} refresh url`), form, headers, {
      signal,
      secrets: [configuration.clientSecret ?? ''],
    });
  }
  throw GatewayError.of('TOKEN_EXCHANGE_FAILED', `a ${auth.type} auth has no token to renew`);
}

/**
 * Calls the token endpoint until it answers, for at most TOKEN_RETRY_ATTEMPTS
 * calls within TOKEN_RETRY_BUDGET_MS: a transient failure (5xx, 408, 429, a
 * timeout, a reset) is retried after the provider's Retry-After or a
 * jittered backoff; when the attempts, or the budget, run out (or the
 * provider asks for a longer wait than is left) it is
 * AUTH_PROVIDER_UNAVAILABLE (503, with Retry-After when the provider gave
 * one). Anything else is thrown at once.
 */
async function withRetries(services: RunServices, connection: ConnectionRecord, auth: AuthEntry, call: (signal: CallStop) => Promise<TokenResponse>): Promise<TokenResponse> {
  const settings = services.settings.tokenRetry ?? DEFAULT_TOKEN_RETRY;
  const started = Date.now();
  const budget = new CallStop();
  const timer = setTimeout(() => budget.abort(new Error(`the token endpoint did not answer within ${settings.budgetMs} ms (TOKEN_RETRY_BUDGET_MS)`)), settings.budgetMs);
  let last: GatewayError | null = null;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call(budget);
      } catch (error) {
        if (budget.aborted) throw unavailable(services, connection, auth, last, attempt, undefined, (budget.reason as Error).message);
        if (!(error instanceof GatewayError) || classifyTokenFailure(error, grantRevokedErrors(auth)) !== 'transient') throw error;
        last = error;
        const retryAfter = error instanceof TokenEndpointError ? error.refusal.retryAfter : undefined;
        const wait = tokenRetryDelayMs(settings, attempt, retryAfter);
        if (attempt >= settings.attempts || Date.now() - started + wait > settings.budgetMs) throw unavailable(services, connection, auth, error, attempt, retryAfter);
        // The wait fits in the budget; should the budget's timer still fire first, it is the same unavailability.
        await sleep(wait, budget).catch(() => {
          throw unavailable(services, connection, auth, error, attempt, retryAfter);
        });
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

function unavailable(services: RunServices, connection: ConnectionRecord, auth: AuthEntry, last: GatewayError | null, attempts: number, retryAfter: string | undefined, budgetNote?: string): GatewayError {
  const host = last instanceof TokenEndpointError ? last.refusal.host : ((last?.details as { host?: string } | undefined)?.host ?? tokenHost(services, connection, auth));
  const reason = last instanceof TokenEndpointError ? `HTTP ${last.refusal.status}${last.refusal.providerError ? ` ${last.refusal.providerError}` : ''}` : (last?.message ?? budgetNote ?? 'no answer');
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const waitMs = parseRetryAfter(retryAfter);
  const details = waitMs !== null ? { retryAfterSeconds: Math.ceil(waitMs / 1000) } : undefined;
  const budgetText = budgetNote && last ? `; ${budgetNote}` : '';
  return GatewayError.of(
    'AUTH_PROVIDER_UNAVAILABLE',
    `connection ${connection.id} could not renew its access token: the token endpoint ${host} is unavailable (${reason}) after ${tries}${budgetText}; the connection stays active, try again later`,
    details,
  );
}

function tokenHost(services: RunServices, connection: ConnectionRecord, auth: AuthEntry): string {
  const definition = auth.definition as { tokenUrl?: string };
  try {
    return new URL(fillTemplate(authUrl(services.settings.appAuthUrls, connection.appSlug, 'tokenUrl', definition.tokenUrl ?? ''), connection.metadata, 'tokenUrl')).host;
  } catch {
    return 'of the app';
  }
}

function grantRevokedErrors(auth: AuthEntry): readonly string[] {
  return (auth.definition as { grantRevokedErrors?: string[] }).grantRevokedErrors ?? [];
}

/** What the user must do now: new client credentials for a machine connection; a new grant (or imported tokens) otherwise. Never a browser for client credentials. */
function grantLostMessage(connection: ConnectionRecord, auth: AuthEntry, why: string): string {
  if (auth.type === 'OAuth2ClientCredentials') {
    return `connection ${connection.id}: the token endpoint refused its client credentials (${why}); PATCH /v2/connections/${connection.id} with a new clientId and clientSecret`;
  }
  return `connection ${connection.id} could not renew its access token (${why}); it needs to be authorized again (GET /v2/connect/${connection.appSlug}/authorize), or given new tokens with PATCH /v2/connections/${connection.id}`;
}
