import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { needsRotation, open, seal, SecretUnreadableError } from '../../../engine/platform/crypto/cipher.ts';
import { createKeyring } from '../../../engine/platform/crypto/keyring.ts';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const secret = { accessToken: 'xoxb-secret', refreshToken: 'r-1', expiresAt: '2026-12-01T00:00:00Z' };

function failure(fn: () => unknown): SecretUnreadableError {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(SecretUnreadableError);
    return error as SecretUnreadableError;
  }
  throw new Error('expected SecretUnreadableError');
}

describe('credentials at rest', () => {
  it('round-trips a secret, never storing it in clear, with a fresh nonce each time', () => {
    const ring = createKeyring([keyA]);
    const one = seal(ring, 'con_1', secret);
    const two = seal(ring, 'con_1', secret);
    expect(open(ring, 'con_1', one)).to.deep.equal(secret);
    expect(JSON.stringify(one)).not.to.include('xoxb-secret');
    expect(one.iv).not.to.equal(two.iv);
    expect(one.data).not.to.equal(two.data);
    expect(one.kid).to.match(/^[0-9a-f]{16}$/);
  });

  it('refuses to open with the wrong key, naming the record and the key id', () => {
    const sealed = seal(createKeyring([keyA]), 'con_1', secret);
    const error = failure(() => open(createKeyring([keyB]), 'con_1', sealed));
    expect(error.message).to.equal(`the stored credentials of con_1 cannot be decrypted: encrypted with key ${sealed.kid}, which is not among the configured ENCRYPTION_KEY values`);
  });

  it('refuses a ciphertext moved to another record, or altered', () => {
    const ring = createKeyring([keyA]);
    const sealed = seal(ring, 'con_1', secret);
    expect(failure(() => open(ring, 'con_2', sealed)).message).to.match(/^the stored credentials of con_2 cannot be decrypted: authentication failed/);
    const bytes = Buffer.from(sealed.data, 'base64');
    bytes[0] ^= 0x01; // always a change (replacing the byte with a fixed one was a no-op 1 time in 256)
    const altered = { ...sealed, data: bytes.toString('base64') };
    expect(failure(() => open(ring, 'con_1', altered)).message).to.match(/authentication failed/);
  });

  it('rotates: the newest key encrypts, older keys still decrypt', () => {
    const old = createKeyring([keyA]);
    const sealedOld = seal(old, 'con_1', secret);
    const rotated = createKeyring([keyB, keyA]);
    expect(open(rotated, 'con_1', sealedOld)).to.deep.equal(secret);
    expect(needsRotation(rotated, sealedOld)).to.equal(true);
    const resealed = seal(rotated, 'con_1', open(rotated, 'con_1', sealedOld));
    expect(needsRotation(rotated, resealed)).to.equal(false);
    expect(open(createKeyring([keyB]), 'con_1', resealed)).to.deep.equal(secret);
  });
});
