import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT, errors as joseErrors } from 'jose';
import { derivedKeys } from '../../platform/crypto/derived-key.ts';
import type { Keyring } from '../../platform/crypto/keyring.ts';

/**
 * The `state` of an OAuth 2.0 authorization: a short-lived HS256 JWT signed
 * with a key derived from ENCRYPTION_KEY. It says which company, app, auth
 * and end user the authorization is for and where to send the browser back;
 * its `jti` names the pending authorization kept in the store (with the PKCE
 * verifier), which the callback consumes once.
 */
export interface OAuthState {
  id: string;
  companyId: string;
  appSlug: string;
  authId: string;
  endUserId: string | null;
  returnUrl: string;
  /** A reconnect: the connection that gets the new tokens (null: a new connection). */
  connectionId: string | null;
  /**
   * The callback stores nothing until the starter confirms (choices.ts), so a consent URL sent to someone else
   * cannot connect their account to the end user it was started for. Always set when an end user's own session
   * (an end-user token) started it; set for the company's backend when it asked (authorize's `confirm=true`).
   * Signed as the claim `ses` (its name before it also meant the backend's request), so a sign-in started before an
   * upgrade is still bound after it.
   */
  confirm: boolean;
}

export const STATE_LIFETIME_SECONDS = 600;
const PURPOSE = 'oauth-state';
const ISSUER = 'integration-gateway/connect';

export async function signState(
  keyring: Keyring,
  state: Omit<OAuthState, 'id' | 'connectionId' | 'confirm'> & { connectionId?: string | null; confirm?: boolean },
  now = Date.now(),
): Promise<{ token: string; id: string }> {
  const [{ kid, key }] = derivedKeys(keyring, PURPOSE) as [{ kid: string; key: Uint8Array }];
  const id = randomUUID();
  const token = await new SignJWT({ cid: state.companyId, app: state.appSlug, auth: state.authId, eu: state.endUserId, ret: state.returnUrl, ...(state.connectionId ? { con: state.connectionId } : {}), ...(state.confirm ? { ses: true } : {}) })
    .setProtectedHeader({ alg: 'HS256', kid })
    .setIssuer(ISSUER)
    .setJti(id)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + STATE_LIFETIME_SECONDS)
    .sign(key);
  return { token, id };
}

export class InvalidStateError extends Error {
  constructor(
    readonly reason: 'expired' | 'invalid',
    /** An expired state this gateway did sign: whose it was and where its browser came from (to be sent back there). */
    readonly expired: { companyId: string; returnUrl: string } | null = null,
  ) {
    super(reason === 'expired' ? 'the authorization took too long; start again' : 'the authorization state is not one this gateway issued');
    this.name = 'InvalidStateError';
  }
}

export async function verifyState(keyring: Keyring, token: string, now = Date.now()): Promise<OAuthState> {
  const keys = derivedKeys(keyring, PURPOSE);
  try {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const match = keys.find((k) => k.kid === header.kid);
        if (!match) throw new InvalidStateError('invalid');
        return match.key;
      },
      { algorithms: ['HS256'], issuer: ISSUER, requiredClaims: ['jti', 'exp', 'iat'], currentDate: new Date(now), clockTolerance: 30 },
    );
    const claims = payload as Record<string, unknown>;
    if (typeof claims.cid !== 'string' || typeof claims.app !== 'string' || typeof claims.auth !== 'string' || typeof claims.ret !== 'string') {
      throw new InvalidStateError('invalid');
    }
    return {
      id: payload.jti!,
      companyId: claims.cid,
      appSlug: claims.app,
      authId: claims.auth,
      endUserId: typeof claims.eu === 'string' ? claims.eu : null,
      returnUrl: claims.ret,
      connectionId: typeof claims.con === 'string' ? claims.con : null,
      confirm: claims.ses === true,
    };
  } catch (error) {
    if (error instanceof InvalidStateError) throw error;
    if (error instanceof joseErrors.JWTExpired) {
      // Only a state whose signature held gets this far: its claims are this gateway's own.
      const claims = error.payload as Record<string, unknown>;
      const signed = claims.iss === ISSUER && typeof claims.cid === 'string' && typeof claims.ret === 'string';
      throw new InvalidStateError('expired', signed ? { companyId: claims.cid as string, returnUrl: claims.ret as string } : null);
    }
    throw new InvalidStateError('invalid');
  }
}
