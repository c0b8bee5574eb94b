import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { createPkcePair, pkceChallenge } from '../../engine/connect/pkce.ts';
import { exchangeSignature, signedExchangeHeaders, verifyExchangeSignature } from '../../engine/credentials/exchange-signature.ts';

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

  it('is HMAC-SHA256 over timestamp, method and path', () => {
    const expected = createHmac('sha256', secret).update('1795262400\nPOST\n/hooks/credentials').digest('hex');
    expect(exchangeSignature(secret, 1795262400, 'post', '/hooks/credentials')).to.equal(expected);
    expect(signedExchangeHeaders(secret, 'POST', '/hooks/credentials', now)).to.deep.equal({ 'X-Timestamp': '1795262400', 'X-Signature': expected });
  });

  it('verifies on the customer side, and refuses a wrong secret, path, method or a stale timestamp', () => {
    const h = signedExchangeHeaders(secret, 'POST', '/hooks/credentials', now);
    const req = { method: 'POST', path: '/hooks/credentials', timestamp: h['X-Timestamp'], signature: h['X-Signature'] };
    expect(verifyExchangeSignature(secret, req, 300, now)).to.equal(true);
    expect(verifyExchangeSignature('other', req, 300, now)).to.equal(false);
    expect(verifyExchangeSignature(secret, { ...req, path: '/other' }, 300, now)).to.equal(false);
    expect(verifyExchangeSignature(secret, { ...req, method: 'GET' }, 300, now)).to.equal(false);
    expect(verifyExchangeSignature(secret, req, 300, now + 301_000)).to.equal(false);
    expect(verifyExchangeSignature(secret, { ...req, signature: undefined }, 300, now)).to.equal(false);
  });
});
