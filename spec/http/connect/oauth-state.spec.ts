import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { InvalidStateError, signState, STATE_LIFETIME_SECONDS, verifyState } from '../../../engine/http/connect/oauth-state.ts';
import { createKeyring } from '../../../engine/platform/crypto/keyring.ts';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const state = { companyId: 'cmp_1', appSlug: 'github', authId: 'oauth2', endUserId: 'eu_1', returnUrl: 'https://app.example.test/done' };

async function reason(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).to.be.instanceOf(InvalidStateError);
  return (error as InvalidStateError).reason;
}

describe('OAuth state', () => {
  it('round-trips what the callback needs, with a fresh id each time', async () => {
    const ring = createKeyring([keyA]);
    const one = await signState(ring, state);
    const two = await signState(ring, state);
    expect(await verifyState(ring, one.token)).to.deep.equal({ ...state, connectionId: null, confirm: false, id: one.id });
    expect(one.id).not.to.equal(two.id);
  });

  it('carries the connection a reconnect renews', async () => {
    const ring = createKeyring([keyA]);
    const signed = await signState(ring, { ...state, connectionId: 'con_123' });
    expect(await verifyState(ring, signed.token)).to.deep.equal({ ...state, connectionId: 'con_123', confirm: false, id: signed.id });
  });

  it("carries whether an end user's own session started it (that session confirms what the callback gets)", async () => {
    const ring = createKeyring([keyA]);
    const signed = await signState(ring, { ...state, confirm: true });
    expect((await verifyState(ring, signed.token)).confirm).to.equal(true);
  });

  it('is refused once expired', async () => {
    const ring = createKeyring([keyA]);
    const { token } = await signState(ring, state, Date.now() - (STATE_LIFETIME_SECONDS + 60) * 1000);
    expect(await reason(verifyState(ring, token))).to.equal('expired');
  });

  it('is refused when forged, altered, or signed with an unknown key', async () => {
    const ring = createKeyring([keyA]);
    const { token } = await signState(ring, state);
    const [h, p, s] = token.split('.');
    const altered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), cid: 'cmp_other' })).toString('base64url')}.${s}`;
    expect(await reason(verifyState(ring, altered))).to.equal('invalid');
    expect(await reason(verifyState(createKeyring([keyB]), token))).to.equal('invalid');
    expect(await reason(verifyState(ring, 'not.a.jwt'))).to.equal('invalid');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    expect(await reason(verifyState(ring, none))).to.equal('invalid');
  });

  it('survives a key rotation while an authorization is under way', async () => {
    const { token } = await signState(createKeyring([keyA]), state);
    expect((await verifyState(createKeyring([keyB, keyA]), token)).companyId).to.equal('cmp_1');
  });
});
