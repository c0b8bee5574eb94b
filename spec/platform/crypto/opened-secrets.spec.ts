import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { open, seal, SecretUnreadableError } from '../../../engine/platform/crypto/cipher.ts';
import { createKeyring } from '../../../engine/platform/crypto/keyring.ts';
import { openRemembered } from '../../../engine/platform/crypto/opened-secrets.ts';

describe('opened connection secrets, remembered for runs', () => {
  const ring = createKeyring([randomBytes(32).toString('base64')]);

  it('opens as open does, and answers the same sealed secret again without opening it', () => {
    const sealed = seal(ring, 'con_1', { arguments: { apiKey: 'k-1' } });
    const first = openRemembered(ring, 'con_1', sealed);
    expect(first).to.deep.equal(open(ring, 'con_1', sealed));
    expect(openRemembered(ring, 'con_1', { ...sealed })).to.equal(first);
  });

  it('opens anew a secret sealed again for the same record (a renewed token)', () => {
    const before = openRemembered(ring, 'con_2', seal(ring, 'con_2', { accessToken: 'old' }));
    const after = openRemembered(ring, 'con_2', seal(ring, 'con_2', { accessToken: 'new' }));
    expect(before).to.deep.equal({ accessToken: 'old' });
    expect(after).to.deep.equal({ accessToken: 'new' });
  });

  it('still refuses an altered ciphertext, or one moved to another record, after the genuine one was opened', () => {
    const sealed = seal(ring, 'con_3', { accessToken: 'a' });
    openRemembered(ring, 'con_3', sealed);
    const tag = Buffer.from(sealed.tag, 'base64');
    tag[0]! ^= 1;
    expect(() => openRemembered(ring, 'con_3', { ...sealed, tag: tag.toString('base64') })).to.throw(SecretUnreadableError);
    expect(() => openRemembered(ring, 'con_other', sealed)).to.throw(SecretUnreadableError);
    expect(() => openRemembered(createKeyring([randomBytes(32).toString('base64')]), 'con_3', sealed)).to.throw(SecretUnreadableError);
  });

  it('answers a frozen secret, so no run can change what the next one gets', () => {
    const secret = openRemembered<{ arguments: { apiKey: string } }>(ring, 'con_4', seal(ring, 'con_4', { arguments: { apiKey: 'k' } }));
    expect(() => {
      (secret.arguments as { apiKey: string }).apiKey = 'changed';
    }).to.throw(TypeError);
    expect(secret.arguments.apiKey).to.equal('k');
  });

  it('keeps at most its limit of records, making room by the oldest', () => {
    const ring = createKeyring([randomBytes(32).toString('base64')]);
    const sealed = ['a', 'b', 'c'].map((id) => seal(ring, `con_lim_${id}`, { v: id }));
    const opened = sealed.map((s, i) => openRemembered(ring, `con_lim_${'abc'[i]}`, s, 2));
    expect(openRemembered(ring, 'con_lim_c', sealed[2]!, 2)).to.equal(opened[2]);
    expect(openRemembered(ring, 'con_lim_a', sealed[0]!, 2)).not.to.equal(opened[0]);
  });
});
