import { expect } from 'chai';
import { createUrlTargets, REMEMBERED_URL_CHARS } from '../../../engine/platform/outbound/targets.ts';

/**
 * The outbound client remembers each URL text it parsed; a caller controls
 * part of it (an argument placed in the query), so what it holds is bounded.
 */
describe('outbound URL targets', () => {
  it('never remembers more than 1,000 URLs of at most REMEMBERED_URL_CHARS characters each', () => {
    const targets = createUrlTargets();
    const long = 'x'.repeat(100_000);
    for (let i = 0; i < 1_500; i++) {
      const url = targets.of('https://api.example.com/items', { q: `${long}${i}` });
      // the answer is right whether remembered or not
      expect(url.searchParams.get('q')).to.equal(`${long}${i}`);
    }
    expect(targets.rememberedChars()).to.be.at.most(1_000 * REMEMBERED_URL_CHARS);
    // the base URL (short) was remembered; the long ones were not
    expect(targets.rememberedChars()).to.be.below(REMEMBERED_URL_CHARS);
  });

  it('gives the same URL for a remembered text as for a new one', () => {
    const targets = createUrlTargets();
    const first = targets.of('https://api.example.com/items?a=1#top', { limit: 10, tags: ['x y', 'z'] });
    const again = targets.of('https://api.example.com/items?a=1#top', { limit: 10, tags: ['x y', 'z'] });
    expect(again.href).to.equal(first.href);
    expect(first.href).to.equal('https://api.example.com/items?a=1&limit=10&tags=x+y&tags=z#top');
  });
});
