import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { tempDir } from '../../support/definition-fixtures.ts';

/** GET /v2/apps/{appSlug}/icon: the app folder's icon.svg, or a monogram; public, and nothing in it runs. */
describe('app icons: GET /v2/apps/{appSlug}/icon', () => {
  describe('the bundled apps', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ DEFINITIONS_DIR: path.join(ROOT, 'definitions') });
    });
    after(() => gw.stop());

    it("serves a brand's icon from its folder (simple-icons, with its licence) without a token, as SVG that cannot run anything", async () => {
      const answer = await documentedCall(gw, 'GET', '/v2/apps/hubspot/icon', { auth: null });
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('content-type')).to.equal('image/svg+xml');
      expect(answer.headers.get('content-security-policy')).to.equal("default-src 'none'; style-src 'unsafe-inline'; sandbox");
      expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(answer.body).to.equal(await fs.readFile(path.join(ROOT, 'definitions/hubspot/icon.svg'), 'utf8'));
      expect(answer.body).to.match(/simple-icons [\d.]+ .*CC0-1\.0/);
      expect(answer.body).to.include('<svg fill="#FF7A59" ');
    });

    it('answers 304 to the ETag it gave', async () => {
      const first = await call(gw, 'GET', '/v2/apps/stripe/icon', { auth: null });
      const again = await fetch(`${gw.url}/v2/apps/stripe/icon`, { headers: { 'If-None-Match': first.headers.get('etag')! } });
      expect(again.status).to.equal(304);
    });

    it('an app that is not loaded is 404 APP_NOT_FOUND', async () => {
      const answer = await documentedCall(gw, 'GET', '/v2/apps/no-such-app/icon', { auth: null });
      expect(answer.status).to.equal(404);
      expect(answer.body.error).to.deep.equal({ code: 'APP_NOT_FOUND', message: 'no app with slug "no-such-app"' });
    });
  });

  describe('an app folder without a usable icon.svg', () => {
    let gw: TestGateway;
    let tmp: { dir: string; remove: () => Promise<void> };
    before(async () => {
      tmp = await tempDir('icons-');
      await fs.cp(path.join(ROOT, 'spec/fixtures/connections'), tmp.dir, { recursive: true });
      // oauthy: an icon.svg with a script must never be served; acme: none at all.
      await fs.writeFile(path.join(tmp.dir, 'oauthy/icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      gw = await startTestGateway({ DEFINITIONS_DIR: tmp.dir });
    });
    after(async () => {
      await gw.stop();
      await tmp.remove();
    });

    it('is drawn as a monogram of the app name', async () => {
      const answer = await documentedCall(gw, 'GET', '/v2/apps/acme-crm/icon', { auth: null });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg".*<title>Acme CRM<\/title>.*>AC<\/text><\/svg>\n$/);
    });

    it('with a script in it, is replaced by the monogram', async () => {
      const answer = await call(gw, 'GET', '/v2/apps/oauthy/icon', { auth: null });
      expect(answer.status).to.equal(200);
      expect(answer.body).not.to.include('script');
      expect(answer.body).to.include('</text></svg>');
    });

    it('a new icon.svg is served once written, without a restart', async () => {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M0 0h24v24H0z"/></svg>\n';
      await fs.writeFile(path.join(tmp.dir, 'acme/icon.svg'), svg);
      const answer = await call(gw, 'GET', '/v2/apps/acme-crm/icon', { auth: null });
      expect(answer.body).to.equal(svg);
    });
  });
});
