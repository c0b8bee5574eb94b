import { expect } from 'chai';
import { etagMatches } from '../../../engine/http/server/etag.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('If-None-Match on the files the gateway serves (/docs, /sdk, /connect)', () => {
  it('matches an ETag in a list, weakly, or *; nothing else', () => {
    expect(etagMatches('"a"', '"a"')).to.equal(true);
    expect(etagMatches('"x", "a"', '"a"')).to.equal(true);
    expect(etagMatches('"x",W/"a"', '"a"')).to.equal(true);
    expect(etagMatches('*', '"a"')).to.equal(true);
    expect(etagMatches('', '"a"')).to.equal(false);
    expect(etagMatches('"x"', '"a"')).to.equal(false);
    expect(etagMatches('"a" "b"', '"a"')).to.equal(false);
    expect(etagMatches(`${' '.repeat(15_000)}x`, '"a"')).to.equal(false);
  });

  describe('through HTTP', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway();
    });
    after(async () => {
      await gw.stop();
    });

    for (const path of ['/docs/assets/swagger-ui.css', '/sdk/connect.js', '/connect/connect.css']) {
      it(`${path}: 304 for its ETag in a list, weak or *; 200 for another tag or a header of 15 KB of spaces`, async () => {
        const etag = (await fetch(`${gw.url}${path}`)).headers.get('etag')!;
        expect(etag).to.match(/^(W\/)?"/);
        const status = async (ifNoneMatch: string) => (await fetch(`${gw.url}${path}`, { headers: { 'if-none-match': ifNoneMatch } })).status;
        expect(await status(`"other", ${etag}`)).to.equal(304);
        expect(await status(`W/${etag}`)).to.equal(304);
        expect(await status('*')).to.equal(304);
        expect(await status('"other"')).to.equal(200);
        expect(await status(`${' '.repeat(15_000)}x`)).to.equal(200);
      });
    }
  });
});
