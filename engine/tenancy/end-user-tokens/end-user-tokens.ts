import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTHeaderParameters } from 'jose';
import type { EndUserTokenSettings } from './settings.ts';
import type { EndUserRecord, Store } from '../../platform/store/index.ts';
import type { KeyRing } from './key-ring.ts';
import { TOKEN_ALGORITHM } from './signing-keys.ts';

/** The claim that names the end user's company (the customer's company id). */
export const COMPANY_CLAIM = 'cid';
/** At most this much clock skew between the gateway instances and whoever checks a token. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export interface EndUserTokenClaims {
  sub: string;
  cid: string;
  iss: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
}

/**
 * A JWT for one end user's embedded session, signed with the newest active
 * key. Header `{ alg: EdDSA, typ: JWT, kid }`; claims `sub` (end user id),
 * `cid` (company id), `iss`, `aud`, `iat`, `exp`, `jti`.
 */
export async function issueEndUserToken(ring: KeyRing, config: EndUserTokenSettings, endUser: Pick<EndUserRecord, 'id' | 'companyId'>): Promise<string> {
  const { kid, key } = await ring.signingKey();
  return await new SignJWT({ [COMPANY_CLAIM]: endUser.companyId })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT', kid })
    .setSubject(endUser.id)
    .setIssuer(config.issuer)
    .setAudience(config.audience)
    .setIssuedAt()
    .setExpirationTime(`${config.ttlSeconds}s`)
    .setJti(randomUUID())
    .sign(key);
}

export type TokenCheck =
  | { ok: true; claims: EndUserTokenClaims; endUser: EndUserRecord }
  | { ok: false; reason: string };

/**
 * Checks an end-user token completely: EdDSA only (no `none`, no HMAC with a
 * public key), `typ: JWT`, a `kid` of an active key, the signature, `iss` and `aud`,
 * `exp`, `iat` (and an age no older than the configured lifetime), `sub`,
 * `cid` and `jti` present, at most 30 s of clock skew, and the end user still
 * existing in that company. The reason is for the log only: a client gets one
 * answer for every failure.
 */
/**
 * `expiredGraceSeconds`: a token that ran out at most that long ago is still taken (only where a route says so:
 * the end user confirming a sign-in their session started, which may end after the session did).
 */
export async function verifyEndUserToken(ring: KeyRing, store: Store, config: EndUserTokenSettings, token: string, expiredGraceSeconds = 0): Promise<TokenCheck> {
  let claims: EndUserTokenClaims;
  try {
    const verified = await jwtVerify(token, async (header: JWTHeaderParameters) => {
      if (typeof header.kid !== 'string') throw new errors.JWKSNoMatchingKey('the token has no kid');
      const key = await ring.verificationKey(header.kid);
      if (!key) throw new errors.JWKSNoMatchingKey('no active signing key has this kid');
      return key;
    }, {
      algorithms: [TOKEN_ALGORITHM],
      typ: 'JWT',
      issuer: config.issuer,
      audience: config.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS + expiredGraceSeconds,
      maxTokenAge: config.ttlSeconds,
      requiredClaims: ['exp', 'iat', 'sub', 'jti', COMPANY_CLAIM],
    });
    claims = verified.payload as unknown as EndUserTokenClaims;
  } catch (error) {
    return { ok: false, reason: error instanceof errors.JOSEError ? error.code : 'ERR_UNREADABLE' };
  }
  if (typeof claims.sub !== 'string' || typeof claims.cid !== 'string') return { ok: false, reason: 'ERR_CLAIM_TYPES' };
  const endUser = await store.endUsers.findOne({ id: claims.sub, companyId: claims.cid });
  if (!endUser) return { ok: false, reason: 'ERR_END_USER_GONE' };
  return { ok: true, claims, endUser };
}
