import { expect } from 'chai';
import { createHash, createHmac } from 'node:crypto';
import { createPkcePair, pkceChallenge } from '../../../engine/http/connect/pkce.ts';
import { exchangeSignature, signedExchangeHeaders, verifyExchangeSignature } from '../../../engine/core/auth/exchange-signature.ts';

describe('PKCE', () => {
  it('matches the RFC 7636 appendix B example', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).to.equal('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('creates a fresh 43-character verifier each time', () => {
    const a = createPkcePair();
    const b = createPkcePair();
    expect(a.verifier).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(a.verifier).not.to.equal(b.verifier);
    expect(a.challenge).to.equal(pkceChallenge(a.verifier));
  });
});

describe('credential exchange signature', () => {
  const secret = 'shared-secret';
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);

  const body = '{"integrationId":"partner","installationId":"ins_1","endUserId":"usr_1"}';
  const nonce = 'AAAAAAAAAAAAAAAAAAAAAA';

  it('is HMAC-SHA256 over timestamp, nonce, method, path with query and the hex SHA-256 of the body, newline-separated', () => {
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const expected = createHmac('sha256', secret).update(`1795262400\n${nonce}\nPOST\n/hooks/credentials?region=eu\n${bodyHash}`).digest('hex');
    expect(exchangeSignature(secret, { timestamp: 1795262400, nonce, method: 'post', target: '/hooks/credentials?region=eu', body })).to.equal(expected);
    expect(signedExchangeHeaders(secret, { method: 'POST', target: '/hooks/credentials?region=eu', body }, now, nonce)).to.deep.equal({
      'X-Timestamp': '1795262400',
      'X-Nonce': nonce,
      'X-Signature': expected,
    });
  });

  it('sends a fresh 22-character nonce each time', () => {
    const a = signedExchangeHeaders(secret, { method: 'POST', target: '/x', body }, now);
    const b = signedExchangeHeaders(secret, { method: 'POST', target: '/x', body }, now);
    expect(a['X-Nonce']).to.match(/^[A-Za-z0-9_-]{22}$/).and.not.equal(b['X-Nonce']);
  });

  it('verifies on the customer side, and refuses a wrong secret, path, method, body, nonce, a seen nonce or a timestamp over 60 s away', () => {
    const h = signedExchangeHeaders(secret, { method: 'POST', target: '/hooks/credentials', body }, now);
    const req = { method: 'POST', target: '/hooks/credentials', body, timestamp: h['X-Timestamp'], nonce: h['X-Nonce'], signature: h['X-Signature'] };
    expect(verifyExchangeSignature(secret, req, now)).to.equal(true);
    expect(verifyExchangeSignature(secret, req, now + 60_000), 'at 60 s').to.equal(true);
    expect(verifyExchangeSignature('other', req, now)).to.equal(false);
    expect(verifyExchangeSignature(secret, { ...req, target: '/other' }, now)).to.equal(false);
    expect(verifyExchangeSignature(secret, { ...req, method: 'GET' }, now)).to.equal(false);
    expect(verifyExchangeSignature(secret, { ...req, body: body.replace('usr_1', 'usr_2') }, now), 'another end user').to.equal(false);
    expect(verifyExchangeSignature(secret, { ...req, nonce: 'BBBBBBBBBBBBBBBBBBBBBB' }, now)).to.equal(false);
    expect(verifyExchangeSignature(secret, req, now, (n) => n === req.nonce), 'a nonce seen before').to.equal(false);
    expect(verifyExchangeSignature(secret, req, now + 61_000)).to.equal(false);
    expect(verifyExchangeSignature(secret, req, now - 61_000)).to.equal(false);
    expect(verifyExchangeSignature(secret, { ...req, signature: undefined }, now)).to.equal(false);
  });
});
