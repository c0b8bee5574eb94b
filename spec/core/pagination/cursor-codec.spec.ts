import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createKeyring } from '../../../engine/platform/crypto/keyring.ts';
import { decodeCursor, encodeCursor } from '../../../engine/core/pagination/index.ts';

describe('the engine cursor codec', () => {
  const [a, b] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
  const scope = { appId: 'github', version: 1, actionId: 'list-issues', connectionId: 'con_1' };

  it('round-trips a URL, an offset and a page for its scope only', () => {
    const ring = createKeyring([a]);
    for (const position of [{ url: 'https://api.github.com/x?page=2' }, { offset: 40 }, { page: 3 }]) {
      expect(decodeCursor(ring, scope, encodeCursor(ring, scope, position))).to.deep.equal({ position });
    }
    const cursor = encodeCursor(ring, scope, { page: 2 });
    expect(decodeCursor(ring, { ...scope, actionId: 'list-labels' }, cursor)).to.deep.equal({ refused: 'a cursor of another action' });
    expect(decodeCursor(ring, { ...scope, version: 'draft' }, cursor)).to.deep.equal({ refused: 'a cursor of another action' });
    expect(decodeCursor(ring, { ...scope, connectionId: 'con_2' }, cursor)).to.deep.equal({ refused: 'a cursor of another connection' });
  });

  it('verifies with any key of the ring, so a rotation keeps cursors in flight working', () => {
    const cursor = encodeCursor(createKeyring([a]), scope, { offset: 20 });
    expect(decodeCursor(createKeyring([b, a]), scope, cursor)).to.deep.equal({ position: { offset: 20 } });
    expect(decodeCursor(createKeyring([b]), scope, cursor)).to.deep.equal({ refused: 'bad signature' });
  });
});
