import { open } from '../../platform/crypto/cipher.ts';
import { requireAppConfiguration } from '../../tenancy/app-configurations/app-configurations.ts';
import type { AppConfigurationSecrets } from '../../tenancy/app-configurations/schemas.ts';
import { connectableVersion, pickAuth } from '../../core/connections/connect.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { Services } from '../services.ts';
import { isAllowedReturnUrl, oauthAuth, redirectUri } from './authorize.ts';
import { isOwnReturnPage } from '../pages/connect-page/own-origin.ts';
import { InvalidStateError, verifyState, type OAuthState } from './oauth-state.ts';
import { providerText } from '../../platform/secrets/provider-text.ts';
import { fillTemplate } from '../../core/oauth/templates.ts';
import { requestTokens } from '../../core/oauth/token-endpoint.ts';
import { authenticateClient } from '../../core/oauth/client-authentication.ts';
import { authUrl } from '../../core/oauth/auth-url-overrides.ts';
import { accountOf } from '../../core/connections/verify-credentials.ts';
import { finishConnection } from './finish-connection.ts';
import { awaitChoice } from './choices.ts';
import { callbackValues, postAuthorizationOptions, type AccountOption } from '../../core/oauth/post-authorization.ts';
import { logFailedSignIn } from './failed-sign-in.ts';

/** The error a callback with a state that can no longer be used is sent back with (the Connect page has a sentence for it). */
const STATE_INVALID = 'oauth_state_invalid';

/** Where the callback sends the browser: the caller's return URL with the outcome in its query (a connection, a choice to make, or an error). */
export type CallbackOutcome = { returnUrl: string; connectionId: string } | { returnUrl: string; choiceId: string } | { returnUrl: string; error: string; description: string };

/**
 * The provider sent the browser back. The state must be one this gateway
 * signed, unexpired and unused (the pending authorization is consumed
 * once); then the code is exchanged for tokens at the auth's token URL, the
 * values the provider gives are gathered (callbackMetadata, tokenMetadata,
 * and the accounts of the postAuthorization request), and the connection is
 * stored (or, for a reconnect, the named connection gets the new tokens). A
 * grant that reaches several accounts, for an auth whose end user chooses,
 * waits as a pending choice instead (`choiceId`), as does every authorization
 * an end user's session started: that session confirms it. A state that cannot be
 * trusted is a 400 OAUTH_STATE_INVALID; one this gateway signed that was
 * used already, or expired, goes back to its return URL with
 * `error=oauth_state_invalid` (an expired one only while that URL is still
 * allowed), as does every later failure.
 */
export async function completeAuthorization(services: Services, query: Record<string, unknown>, ownOrigins: readonly string[]): Promise<CallbackOutcome> {
  const stateToken = typeof query.state === 'string' ? query.state : '';
  let state: OAuthState;
  try {
    state = await verifyState(services.keyring, stateToken);
  } catch (error) {
    if (!(error instanceof InvalidStateError)) throw error;
    // An end user back after the state's ten minutes goes back to the page that started it, told to start again
    // (the Connect page words it), where that page is still one the company allows; a state not ours is a 400.
    const expired = error.expired;
    if (expired && (isOwnReturnPage(expired.returnUrl, ownOrigins) || (await isAllowedReturnUrl(services, expired.companyId, expired.returnUrl)))) {
      logFailedSignIn(services.logger, expired, STATE_INVALID, error.message);
      return { returnUrl: expired.returnUrl, error: STATE_INVALID, description: error.message };
    }
    throw GatewayError.of('OAUTH_STATE_INVALID', error.message);
  }
  const pending = await services.store.pendingAuthorizations.findOne({ id: state.id, companyId: state.companyId });
  const consumed = pending ? await services.store.pendingAuthorizations.deleteOne({ id: state.id }) : false;
  // Used already (the browser's back button, a reload of the callback): back to the page that started it, as the first time.
  const fail = (error: string, description: string): CallbackOutcome => {
    logFailedSignIn(services.logger, state, error, description);
    return { returnUrl: state.returnUrl, error, description };
  };
  if (!pending || !consumed) return fail(STATE_INVALID, 'this authorization was already completed or abandoned; start again');

  if (typeof query.error === 'string') {
    return fail(providerText(query.error, [], 100), typeof query.error_description === 'string' ? providerText(query.error_description, []) : 'the provider refused the authorization');
  }
  if (typeof query.code !== 'string' || query.code === '') return fail('invalid_request', 'the provider sent no authorization code');

  // What the token request carries: never to be reflected into the redirect the browser follows.
  const sent: string[] = [query.code];
  try {
    const version = connectableVersion(services, state.appSlug);
    const auth = pickAuth(version, state.authId);
    const definition = oauthAuth(auth);
    const configuration = await requireAppConfiguration(services, state.companyId, state.appSlug);
    const appSecrets = open<AppConfigurationSecrets>(services.keyring, configuration.id, configuration.secrets);
    const { codeVerifier } = open<{ codeVerifier?: string }>(services.keyring, pending.id, pending.secrets);
    const form: Record<string, string> = {
      grant_type: 'authorization_code',
      code: query.code,
      redirect_uri: redirectUri(services, configuration.redirectUri),
    };
    const headers: Record<string, string> = {};
    authenticateClient(definition.clientAuthentication ?? 'Body', configuration.clientId ?? '', appSecrets.clientSecret, form, headers);
    if (codeVerifier) form.code_verifier = codeVerifier;
    sent.push(appSecrets.clientSecret ?? '', codeVerifier ?? '', ...Object.values(headers));
    const tokenUrl = authUrl(services.run.settings.appAuthUrls, state.appSlug, 'tokenUrl', definition.tokenUrl);
    const tokens = await requestTokens(services.http, fillTemplate(tokenUrl, pending.metadata, `auth ${auth.id} tokenUrl`), form, headers, {
      keep: definition.tokenMetadata,
    });
    const secrets = { arguments: {}, accessToken: tokens.accessToken, ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}) };
    sent.push(tokens.accessToken, tokens.refreshToken ?? '');
    const tokenExpiresAt = tokens.expiresIn ? new Date(Date.now() + tokens.expiresIn * 1000) : null;
    const given: Record<string, unknown> = { ...callbackValues(definition, query), ...tokens.kept };
    const finish = { secrets, tokenExpiresAt, started: pending.metadata, given, accountLabel: null as string | null };
    if (definition.postAuthorization) {
      const options = await postAuthorizationOptions(services.http, auth, {
        appSlug: state.appSlug,
        appAuthUrls: services.run.settings.appAuthUrls,
        metadata: { ...pending.metadata, ...given },
        accessToken: tokens.accessToken,
      });
      const chosen = options.length === 1 || definition.postAuthorization.choice === 'First' ? options[0] : await keptAccount(services, state, options);
      if (!chosen) return { returnUrl: state.returnUrl, choiceId: await awaitChoice(services, state, { ...finish, options }) };
      Object.assign(given, chosen.metadata);
      finish.accountLabel = chosen.label;
    }
    // Without an account chosen, the auth's verify names it ("who am I" with the new token).
    if (finish.accountLabel === null && definition.verify) {
      finish.accountLabel = await accountOf(services.run, version, auth, tokens.accessToken, { ...pending.metadata, ...given });
    }
    // Started by an end user's session: that session confirms (choices.ts), or whoever the consent URL was sent to
    // would connect their account to the end user who started it.
    if (state.confirm) {
      const options = [{ label: finish.accountLabel ?? version.app.name, metadata: {} }];
      return { returnUrl: state.returnUrl, choiceId: await awaitChoice(services, state, { ...finish, options, confirm: { accountLabel: finish.accountLabel } }) };
    }
    const { connectionId } = await finishConnection(services, state, finish);
    return { returnUrl: state.returnUrl, connectionId };
  } catch (error) {
    if (error instanceof GatewayError) return fail(error.code.toLowerCase(), providerText(error.message, sent));
    throw error;
  }
}

/**
 * A reconnect keeps the account the connection has: the option whose first
 * metadata value (Xero's tenantId) the connection already holds. None for a
 * new connection, or when the connection's account is not among them.
 */
async function keptAccount(services: Services, state: OAuthState, options: AccountOption[]): Promise<AccountOption | undefined> {
  if (state.connectionId === null) return undefined;
  const current = await services.store.connections.findOne({ id: state.connectionId, companyId: state.companyId });
  if (!current) return undefined;
  return options.find((option) => {
    const [key, value] = Object.entries(option.metadata)[0] ?? [];
    return key !== undefined && Object.hasOwn(current.metadata, key) && String(current.metadata[key]) === value;
  });
}

export function outcomeLocation(outcome: CallbackOutcome): string {
  const url = new URL(outcome.returnUrl);
  if ('connectionId' in outcome) {
    url.searchParams.set('connectionId', outcome.connectionId);
  } else if ('choiceId' in outcome) {
    url.searchParams.set('choiceId', outcome.choiceId);
  } else {
    url.searchParams.set('error', outcome.error);
    url.searchParams.set('error_description', outcome.description);
  }
  return url.toString();
}
