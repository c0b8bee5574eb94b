import { ConfigError, integer, optional, type Env } from '../../platform/settings/env.ts';

/** How end-user tokens (GET /v1/users/{userId}/token) are issued and checked. */
export interface EndUserTokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
  /** END_USER_CONNECT_ATTEMPTS_PER_MINUTE: how many connection attempts (credentials tried) one end user may make a minute (connect-attempts.ts). */
  connectAttemptsPerMinute: number;
  /** END_USER_MAX_CONNECTIONS: how many connections an end user may have for its session to make another (connection-room.ts). */
  maxConnections: number;
}

/**
 * END_USER_TOKEN_ISSUER (default: where clients reach the gateway, so that
 * `${iss}/.well-known/jwks.json` finds the keys that verify it),
 * END_USER_TOKEN_AUDIENCE (default: the embedded host's /v1) and
 * END_USER_TOKEN_TTL_SECONDS, END_USER_CONNECT_ATTEMPTS_PER_MINUTE, END_USER_MAX_CONNECTIONS.
 */
export function endUserTokenSettingsFromEnv(env: Env, urls: { publicBaseUrl: string; embeddedBaseUrl: string }): EndUserTokenSettings {
  return {
    issuer: tokenClaim(env, 'END_USER_TOKEN_ISSUER') ?? urls.publicBaseUrl,
    audience: tokenClaim(env, 'END_USER_TOKEN_AUDIENCE') ?? `${urls.embeddedBaseUrl}/v1`,
    ttlSeconds: integer(env, 'END_USER_TOKEN_TTL_SECONDS', 600, 30, 86_400),
    connectAttemptsPerMinute: integer(env, 'END_USER_CONNECT_ATTEMPTS_PER_MINUTE', 10, 1, 10_000),
    maxConnections: integer(env, 'END_USER_MAX_CONNECTIONS', 1000, 1, 1_000_000),
  };
}

/** A JWT `iss` or `aud` value: printable, no spaces, at most 256 characters. */
function tokenClaim(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw !== undefined && !/^[\x21-\x7e]{1,256}$/.test(raw)) {
    throw new ConfigError(name, `must be 1 to 256 printable characters without spaces (got "${raw}")`);
  }
  return raw;
}
