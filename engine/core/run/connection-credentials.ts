import type { ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import { authArgumentValues } from '../connections/connect.ts';
import { open } from '../../platform/crypto/cipher.ts';
import { openRemembered } from '../../platform/crypto/opened-secrets.ts';
import type { AppVersion, AuthEntry } from '../definitions/index.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { applyAuth, type AppliedAuth } from '../auth/apply-auth.ts';
import type { fillTemplate } from '../arguments/index.ts';
import { exchangeCredentials, forgetExchangedToken } from '../auth/credential-exchange.ts';
import { renewToken, tokenExpired } from '../auth/token-renewal.ts';
import type { RunServices } from './run-services.ts';
import { stillRefused } from '../connections/verify-credentials.ts';

/** Auths whose credentials are what the user gave, as they are: a refusal cannot be renewed away. */
const STATIC_AUTHS: ReadonlySet<string> = new Set(['ApiKey', 'Basic', 'Bearer']);

/** Who a credential exchange asks for, and with which host variables. */
export interface ExchangeFor {
  installationId: string | null;
  endUserId: string | null;
  variables: Record<string, string>;
}

/**
 * A connection's credentials through one run of an action or one proxied
 * call, the same rules for both: the connection must be active (else
 * CONNECTION_NEEDS_REAUTHORIZATION, 409) and its auth one the version has;
 * the token is obtained first when it is known to be expired (or, for client
 * credentials, missing; a credential exchange always asks); the auth is
 * applied to every attempt; and when the app says the token is no good (a
 * 401, a mapping's meta.authenticated false) it is renewed once, and only
 * once, for the call to be sent again.
 */
export class ConnectionCredentials {
  readonly auth: AuthEntry;
  readonly #version: AppVersion;
  #connection: ConnectionRecord;
  #token: string | undefined;
  #renewed = false;
  #exchange: ExchangeFor | undefined;

  private constructor(
    private readonly services: RunServices,
    version: AppVersion,
    connection: ConnectionRecord,
    auth: AuthEntry,
  ) {
    this.#version = version;
    this.#connection = connection;
    this.auth = auth;
  }

  /** The credentials of `connection` for a call of `version`; throws when it cannot be used as it is. */
  static of(services: RunServices, version: AppVersion, connection: ConnectionRecord): ConnectionCredentials {
    if (connection.status !== 'active') {
      throw GatewayError.of(
        'CONNECTION_NEEDS_REAUTHORIZATION',
        connection.authType === 'OAuth2ClientCredentials'
          ? `connection ${connection.id}: the token endpoint refused its client credentials; PATCH /v2/connections/${connection.id} with a new clientId and clientSecret`
          : STATIC_AUTHS.has(connection.authType)
            ? `connection ${connection.id}: ${connection.appSlug} refused its credentials (HTTP 401); PATCH /v2/connections/${connection.id} with new credentials`
            : `connection ${connection.id} needs to be authorized again (the provider refused its grant): GET /v2/connect/${connection.appSlug}/authorize, or PATCH /v2/connections/${connection.id} with new tokens`,
      );
    }
    const auth = version.auths.get(connection.authId);
    if (!auth) {
      throw GatewayError.of('CONFLICT', `connection ${connection.id} uses auth "${connection.authId}", which ${version.app.slug} version ${version.version} does not have`);
    }
    return new ConnectionCredentials(services, version, connection, auth);
  }

  /** The connection as it is now (a renewal replaces it). */
  get connection(): ConnectionRecord {
    return this.#connection;
  }

  /** The token the calls are sent with now (undefined for auths without one), for what a run redacts. */
  get token(): string | undefined {
    return this.#token;
  }

  /** Whether the one renewal was spent. */
  get renewed(): boolean {
    return this.#renewed;
  }

  /** Decrypted once per sealed credentials (a renewal seals anew), and remembered across calls: a run needs them three times or more. */
  secrets(): Readonly<ConnectionSecrets> {
    return openRemembered<ConnectionSecrets>(this.services.keyring, this.#connection.id, this.#connection.credentials);
  }

  /** The connection's host values: its metadata and the auth's argument values (what the API's and the auth's arguments are checked from). */
  hostValues(): Record<string, unknown> {
    return { ...this.#connection.metadata, ...authArgumentValues(this.auth, this.secrets()) };
  }

  /** The token the call starts with: renewed first when known to be expired, obtained first for client credentials and credential exchanges. */
  async start(exchange: ExchangeFor): Promise<void> {
    this.#exchange = exchange;
    const { services, auth } = this;
    const connection = this.#connection;
    const secrets = this.secrets();
    switch (auth.type) {
      case 'OAuth2AuthorizationCode':
        this.#token = tokenExpired(connection, services.clock.now()) ? await this.#renewedToken() : secrets.accessToken;
        break;
      case 'OAuth2ClientCredentials':
        this.#token = !secrets.accessToken || tokenExpired(connection, services.clock.now()) ? await this.#renewedToken() : secrets.accessToken;
        break;
      case 'CredentialExchange':
        this.#token = await exchangeCredentials(services, { connection, auth, ...exchange });
        break;
      default:
        this.#token = undefined;
    }
  }

  /** The auth put on one attempt (headers, query, the redirect policy): `variables` are the call's host variables, `fill` a run plan's template filler. */
  apply(variables: Record<string, string>, fill?: typeof fillTemplate): AppliedAuth {
    return applyAuth(this.auth, this.secrets(), variables, this.#token, fill);
  }

  /**
   * The app said the token is no good: renews it when the auth can (OAuth
   * 2.0, credential exchange) and this call has not renewed yet. True when
   * the call should be sent once more with the new token.
   */
  async renewOnce(): Promise<boolean> {
    const { auth } = this;
    if (this.#renewed || !(auth.type === 'OAuth2AuthorizationCode' || auth.type === 'OAuth2ClientCredentials' || auth.type === 'CredentialExchange')) return false;
    this.#renewed = true;
    if (auth.type === 'CredentialExchange') {
      const exchange = this.#exchange!;
      forgetExchangedToken(this.#connection, exchange);
      this.#token = await exchangeCredentials(this.services, { connection: this.#connection, auth, ...exchange });
    } else {
      this.#connection = await renewToken(this.services, this.#connection, auth);
      this.#token = this.secrets().accessToken;
    }
    return true;
  }

  /**
   * The app refused credentials no renewal can replace (an API key, a
   * password, a bearer token: a 401, or a mapping's meta.authenticated
   * false). When the auth declares its verification request, the app is
   * asked once more with it: if it refuses them too, the credentials are
   * gone, and the connection is marked needs_reauthorization, announced once
   * (connection.needs_reauthorization); the next run answers
   * CONNECTION_NEEDS_REAUTHORIZATION until new credentials are PATCHed. A
   * verification the app accepts means the 401 was that endpoint's own (a
   * permission, say): the connection stays active, as it does for an auth
   * without a verify, whose 401 alone cannot tell. OAuth and credential
   * exchanges renew instead (renewOnce); nothing happens for them here.
   */
  async refused(): Promise<void> {
    if (!STATIC_AUTHS.has(this.auth.type) || !('verify' in this.auth.definition)) return;
    const connection = this.#connection;
    if (await stillRefused(this.services, this.#version, this.auth, this.secrets(), connection.metadata)) {
      await this.services.tokens.markNeedsReauthorization(connection);
    }
  }

  async #renewedToken(): Promise<string | undefined> {
    const renewed = await renewToken(this.services, this.#connection, this.auth);
    return open<ConnectionSecrets>(this.services.keyring, renewed.id, renewed.credentials).accessToken;
  }
}
