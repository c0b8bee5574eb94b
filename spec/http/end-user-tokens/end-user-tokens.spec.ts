import { expect } from 'chai';
import { open } from '../../../engine/platform/crypto/cipher.ts';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, jwtVerify, SignJWT, type CryptoKey } from 'jose';
import { runAdminCommand } from '../../../engine/admin/commands.ts';
import { issueApiKey } from '../../../engine/tenancy/api-keys/api-keys.ts';
import { addMember, createCompany } from '../../../engine/tenancy/companies/companies.ts';
import { END_USER_TOKEN_REJECTED } from '../../../engine/http/guards/require-end-user-token.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, expectDocumented } from '../../helpers/openapi.ts';
import { startTokenProbe } from './probe.ts';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('end-user tokens', () => {
  let gw: TestGateway;
  let probe: { url: string; close(): Promise<void> };
  let endUserId: string;
  let companyId: string;
  let other: { apiKey: string; endUserId: string };

  const token = async (userId = endUserId) => {
    const { status, body } = await documentedCall(gw, 'GET', `/v1/users/${userId}/token`);
    expect(status, JSON.stringify(body)).to.equal(200);
    return body.token as string;
  };
  let requests = 0;
  const useToken = (auth: string | null, reqId = `probe-${++requests}`) =>
    call({ url: probe.url, apiKey: '' }, 'GET', '/probe', { auth, headers: { 'X-Request-Id': reqId } });
  /** Refused with the one answer a client gets; the log says why, so each case is refused for its own reason. */
  const expectRefused = async (auth: string | null, reason: string) => {
    const reqId = `refused-${++requests}`;
    const { status, body, headers } = await useToken(auth, reqId);
    expect(status).to.equal(401);
    expect(body).to.deep.equal({ success: false, error: { code: 'UNAUTHORIZED', message: END_USER_TOKEN_REJECTED } });
    expect(headers.get('www-authenticate')).to.equal('Bearer');
    // What the run endpoint, the check's first user, documents for a refusal.
    expectDocumented('POST', '/v1/installation/apps/app/published/action/act/run', { status, body });
    const line = gw.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.reqId === reqId && l.msg === 'end-user token refused');
    expect(line?.reason).to.equal(reason);
  };
  const signingRecord = async () => (await gw.gateway.services.store.signingKeys.find({ retiredOn: null }, { sort: { createdOn: -1 } }))[0]!;
  /** Signs like the gateway would, with its current key, with claims and header to taste. */
  const forge = async (claims: Record<string, unknown>, header: Record<string, unknown> = {}, key?: CryptoKey) => {
    const record = await signingRecord();
    const signer = key ?? ((await importJWK(open(gw.gateway.services.keyring, record.id, record.privateKey) as any, 'EdDSA')) as CryptoKey);
    const now = Math.floor(Date.now() / 1000);
    const { issuer, audience } = gw.gateway.services.config.endUserTokens;
    const base = { sub: endUserId, cid: companyId, iss: issuer, aud: audience, iat: now, exp: now + 600, jti: 'j-1' };
    const payload = Object.fromEntries(Object.entries({ ...base, ...claims }).filter(([, v]) => v !== undefined));
    return await new SignJWT(payload).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: record.id, ...header } as any).sign(signer);
  };

  before(async () => {
    gw = await startTestGateway();
    probe = await startTokenProbe(gw.gateway.services);
    const created = await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'ext-1', name: 'Erin' } });
    endUserId = created.body.data.userId;
    companyId = (await gw.gateway.services.store.endUsers.findOne({ id: endUserId }))!.companyId;
    const store = gw.gateway.services.store;
    const otherCompany = await createCompany(store, { name: 'Other' });
    const owner = await addMember(store, otherCompany.id, { name: 'O', email: 'o@other.test', role: 'owner' });
    const { key } = await issueApiKey(store, { companyId: otherCompany.id, userId: owner.userId }, 'other');
    const theirs = await documentedCall({ url: gw.url, apiKey: key }, 'POST', '/v1/users', { body: { name: 'Theirs' } });
    other = { apiKey: key, endUserId: theirs.body.data.userId };
  });
  after(async () => {
    await probe.close();
    await gw.stop();
  });

  describe('GET /v1/users/{userId}/token', () => {
    it('answers { token } without the success wrapper, never cached', async () => {
      const { status, body, headers } = await documentedCall(gw, 'GET', `/v1/users/${endUserId}/token`);
      expect(status).to.equal(200);
      expect(Object.keys(body)).to.deep.equal(['token']);
      expect(headers.get('cache-control')).to.equal('no-store');
    });

    it('signs with EdDSA and a kid, with sub, cid, iss, aud, iat, exp (10 minutes) and jti', async () => {
      const jwt = await token();
      const header = decodeProtectedHeader(jwt);
      expect(header).to.deep.equal({ alg: 'EdDSA', typ: 'JWT', kid: (await signingRecord()).id });
      const claims = decodeJwt(jwt);
      expect(Object.keys(claims).sort()).to.deep.equal(['aud', 'cid', 'exp', 'iat', 'iss', 'jti', 'sub']);
      expect(claims).to.include({ sub: endUserId, cid: companyId, iss: gw.gateway.services.config.endUserTokens.issuer, aud: gw.gateway.services.config.endUserTokens.audience });
      expect(claims.exp! - claims.iat!).to.equal(600);
      expect(Math.abs(claims.iat! - Date.now() / 1000)).to.be.below(5);
      expect(claims.jti).to.match(/^[0-9a-f-]{36}$/);
      expect(decodeJwt(await token()).jti).not.to.equal(claims.jti);
    });

    it('can be verified by anyone with the public keys at /.well-known/jwks.json', async () => {
      const jwks = await call(gw, 'GET', '/.well-known/jwks.json', { auth: null });
      expect(jwks.status).to.equal(200);
      expect(jwks.headers.get('cache-control')).to.equal('public, max-age=300');
      expect(jwks.body.keys).to.have.length(1);
      expect(jwks.body.keys[0]).to.have.all.keys('kty', 'crv', 'x', 'kid', 'alg', 'use');
      expect(jwks.body.keys[0]).to.include({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
      const { issuer, audience } = gw.gateway.services.config.endUserTokens;
      const { payload } = await jwtVerify(await token(), createLocalJWKSet(jwks.body), { issuer, audience, algorithms: ['EdDSA'] });
      expect(payload.sub).to.equal(endUserId);
    });

    it('answers 404 for an unknown end user and for one of another company, alike', async () => {
      const unknown = await documentedCall(gw, 'GET', '/v1/users/eu_000000000000000000000000/token');
      expect(unknown.status).to.equal(404);
      expect(unknown.body).to.deep.equal({ success: false, error: { code: 'NOT_FOUND', message: 'no end user eu_000000000000000000000000 in your company' } });
      const foreign = await documentedCall(gw, 'GET', `/v1/users/${other.endUserId}/token`);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `no end user ${other.endUserId} in your company` });
      // The owning company does get one.
      expect((await documentedCall({ url: gw.url, apiKey: other.apiKey }, 'GET', `/v1/users/${other.endUserId}/token`)).status).to.equal(200);
    });

    it('answers 400 for a userId longer than any id', async () => {
      const { status, body } = await documentedCall(gw, 'GET', `/v1/users/${'x'.repeat(129)}/token`);
      expect(status).to.equal(400);
      expect(body.error).to.deep.include({ code: 'VALIDATION_ERROR', message: 'userId: must NOT have more than 128 characters' });
    });

    it('requires an API key, and does not take an end-user token in its place', async () => {
      expect((await documentedCall(gw, 'GET', `/v1/users/${endUserId}/token`, { auth: null })).status).to.equal(401);
      const asKey = await documentedCall(gw, 'GET', `/v1/users/${endUserId}/token`, { auth: await token() });
      expect(asKey.status).to.equal(401);
      expect(asKey.body.error.code).to.equal('UNAUTHORIZED');
    });

    it('never writes the token to the log', async () => {
      const jwt = await token();
      await useToken(jwt);
      expect(gw.logs()).not.to.include(jwt.split('.')[2]);
    });
  });

  describe('the end-user token check (requireEndUserToken)', () => {
    it('admits a fresh token and names the end user', async () => {
      const { status, body } = await useToken(await token());
      expect(status).to.equal(200);
      expect(body).to.deep.include({ kind: 'endUser', companyId, endUserId, isTestUser: false });
    });

    it('allows up to 30 s of clock skew on exp and iat', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect((await useToken(await forge({ iat: now - 600, exp: now - 20 }))).status).to.equal(200);
      expect((await useToken(await forge({ iat: now + 20, exp: now + 620 }))).status).to.equal(200);
    });

    const refusals: [string, string, () => Promise<string | null>][] = [
      ['no Authorization header', 'ERR_NO_BEARER', async () => null],
      ['garbage', 'ERR_JWS_INVALID', async () => 'not.a.jwt'],
      ['an API key', 'ERR_JWS_INVALID', async () => gw.apiKey],
      ['a tampered payload (another sub)', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', async () => {
        const [h, , s] = (await token()).split('.');
        return `${h}.${b64({ ...decodeJwt(await token()), sub: other.endUserId })}.${s}`;
      }],
      ['a tampered signature', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', async () => {
        const jwt = await token();
        const last = jwt.at(-2) === 'A' ? 'B' : 'A';
        return jwt.slice(0, -2) + last + jwt.at(-1);
      }],
      ['an expired token (beyond the 30 s tolerance)', 'ERR_JWT_EXPIRED', async () => {
        const now = Math.floor(Date.now() / 1000);
        return await forge({ iat: now - 700, exp: now - 60 });
      }],
      ['a token issued in the future', 'ERR_JWT_CLAIM_VALIDATION_FAILED', async () => {
        const now = Math.floor(Date.now() / 1000);
        return await forge({ iat: now + 120, exp: now + 720 });
      }],
      ['a token older than the configured lifetime, whatever its exp says', 'ERR_JWT_EXPIRED', async () => {
        const now = Math.floor(Date.now() / 1000);
        return await forge({ iat: now - 3600, exp: now + 3600 });
      }],
      ['alg: none', 'ERR_JOSE_ALG_NOT_ALLOWED', async () => {
        const claims = decodeJwt(await token());
        return `${b64({ alg: 'none', typ: 'JWT', kid: (await signingRecord()).id })}.${b64(claims)}.`;
      }],
      ['HS256 keyed with the public key', 'ERR_JOSE_ALG_NOT_ALLOWED', async () => {
        const record = await signingRecord();
        const secret = new TextEncoder().encode(JSON.stringify(record.publicJwk));
        const claims = decodeJwt(await token());
        return await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: record.id }).sign(secret);
      }],
      ['a token signed by another key under the same kid', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', async () => {
        const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
        return await forge({}, {}, privateKey);
      }],
      ['an unknown kid', 'ERR_JWKS_NO_MATCHING_KEY', async () => forge({}, { kid: 'sig_unknown' })],
      ['no kid', 'ERR_JWKS_NO_MATCHING_KEY', async () => forge({}, { kid: undefined })],
      ['another typ', 'ERR_JWT_CLAIM_VALIDATION_FAILED', async () => forge({}, { typ: 'at+jwt' })],
      ['the wrong audience', 'ERR_JWT_CLAIM_VALIDATION_FAILED', async () => forge({ aud: 'https://someone-else.example' })],
      ['the wrong issuer', 'ERR_JWT_CLAIM_VALIDATION_FAILED', async () => forge({ iss: 'https://evil.example' })],
      ['no sub', 'ERR_JWT_CLAIM_VALIDATION_FAILED', async () => forge({ sub: undefined })],
      ['no iat', 'ERR_JWT_CLAIM_VALIDATION_FAILED', async () => forge({ iat: undefined })],
      ['no exp', 'ERR_JWT_CLAIM_VALIDATION_FAILED', async () => forge({ exp: undefined })],
      ['no company claim', 'ERR_JWT_CLAIM_VALIDATION_FAILED', async () => forge({ cid: undefined })],
      ['a company that is not the end user\'s', 'ERR_END_USER_GONE', async () => forge({ cid: 'cmp_other' })],
      ['an end user that does not exist', 'ERR_END_USER_GONE', async () => forge({ sub: 'eu_gone' })],
    ];
    for (const [name, reason, make] of refusals) {
      it(`answers 401 with the one message for ${name} (${reason})`, async () => {
        await expectRefused(await make(), reason);
      });
    }

    it('refuses the token of an end user deleted since', async () => {
      const created = await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'leaving' } });
      const jwt = await token(created.body.data.userId);
      expect((await useToken(jwt)).status).to.equal(200);
      await gw.gateway.services.store.endUsers.deleteOne({ id: created.body.data.userId });
      await expectRefused(jwt, 'ERR_END_USER_GONE');
    });

    it('logs why a token was refused, never the token', async () => {
      const jwt = await forge({ aud: 'https://nope.example' });
      await expectRefused(jwt, 'ERR_JWT_CLAIM_VALIDATION_FAILED');
      expect(gw.logs()).not.to.include(jwt.split('.')[2]);
    });
  });

  describe('signing key rotation (admin tool)', () => {
    const admin = async (...argv: string[]) => {
      const result = await runAdminCommand(gw.gateway.services, [...argv, '--json']);
      return { ...result, json: result.exitCode === 0 ? JSON.parse(result.output) : null };
    };

    it('signs with the newest key, verifies with older ones until they are retired', async () => {
      const before = await token();
      const oldKid = decodeProtectedHeader(before).kid!;
      const rotated = await admin('signing-keys:rotate');
      expect(rotated.exitCode).to.equal(0);
      const newKid = rotated.json.kid;
      expect(newKid).to.not.equal(oldKid);

      const after = await token();
      expect(decodeProtectedHeader(after).kid).to.equal(newKid);
      expect((await useToken(before)).status).to.equal(200);
      expect((await useToken(after)).status).to.equal(200);
      const jwks = await call(gw, 'GET', '/.well-known/jwks.json', { auth: null });
      expect(jwks.body.keys.map((k: any) => k.kid)).to.deep.equal([newKid, oldKid]);

      const listed = (await admin('signing-keys:list')).json;
      expect(listed.map((k: any) => [k.kid, k.status])).to.deep.equal([[newKid, 'signing'], [oldKid, 'verifying']]);
      const newRecord = (await gw.gateway.services.store.signingKeys.findOne({ id: newKid }))!;
      const privateD = open<{ d: string }>(gw.gateway.services.keyring, newKid, newRecord.privateKey).d;
      expect(JSON.stringify(listed)).not.to.include(privateD);
      // At rest the private key is sealed: its secret part is not in the record.
      expect(JSON.stringify(newRecord)).not.to.include(privateD);

      expect((await admin('signing-keys:retire', oldKid)).exitCode).to.equal(0);
      await expectRefused(before, 'ERR_JWKS_NO_MATCHING_KEY');
      expect((await useToken(after)).status).to.equal(200);
      const afterRetire = await call(gw, 'GET', '/.well-known/jwks.json', { auth: null });
      expect(afterRetire.body.keys.map((k: any) => k.kid)).to.deep.equal([newKid]);
      expect((await admin('signing-keys:list')).json.map((k: any) => k.status)).to.deep.equal(['signing', 'retired']);
    });

    it('refuses to retire the last active key, a retired key, or an unknown one', async () => {
      const [active] = (await admin('signing-keys:list')).json.filter((k: any) => k.status === 'signing');
      expect(await runAdminCommand(gw.gateway.services, ['signing-keys:retire', active.kid])).to.deep.equal({
        exitCode: 1,
        output: `error: signing key ${active.kid} is the only active key; run signing-keys:rotate first, then retire it`,
      });
      const [retired] = (await admin('signing-keys:list')).json.filter((k: any) => k.status === 'retired');
      expect((await runAdminCommand(gw.gateway.services, ['signing-keys:retire', retired.kid])).output).to.equal(`error: signing key ${retired.kid} is already retired`);
      expect((await runAdminCommand(gw.gateway.services, ['signing-keys:retire', `sig_${'0'.repeat(24)}`])).output).to.equal(`error: signing key sig_${'0'.repeat(24)} does not exist`);
      expect((await runAdminCommand(gw.gateway.services, ['signing-keys:retire'])).exitCode).to.equal(2);
    });
  });
});

describe('end-user token settings', () => {
  it('keeps its signing key across restarts and honours END_USER_TOKEN_TTL_SECONDS, _ISSUER and _AUDIENCE', async () => {
    const env = { END_USER_TOKEN_TTL_SECONDS: '120', END_USER_TOKEN_ISSUER: 'https://id.example', END_USER_TOKEN_AUDIENCE: 'urn:example:embedded' };
    const first = await startTestGateway(env);
    const created = await documentedCall(first, 'POST', '/v1/users', { body: {} });
    const kid = decodeProtectedHeader((await documentedCall(first, 'GET', `/v1/users/${created.body.data.userId}/token`)).body.token).kid;
    await first.stop({ keepData: true });
    const second = await startTestGateway({ ...env, DATA_DIR: first.dataDir });
    try {
      const jwt = (await documentedCall(second, 'GET', `/v1/users/${created.body.data.userId}/token`)).body.token;
      expect(decodeProtectedHeader(jwt).kid).to.equal(kid);
      const claims = decodeJwt(jwt);
      expect(claims).to.include({ iss: 'https://id.example', aud: 'urn:example:embedded' });
      expect(claims.exp! - claims.iat!).to.equal(120);
      expect(await second.gateway.services.store.signingKeys.count({})).to.equal(1);
    } finally {
      await second.stop();
      await (await import('node:fs/promises')).rm(first.dataDir, { recursive: true, force: true });
    }
  });
});
