import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { CONNECT_FILES, CONNECT_PAGE_DIR } from '../../../../engine/http/pages/connect-page/files.ts';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { otherTenant } from '../../../helpers/tenants.ts';

const CUSTOMER = 'https://app.customer.test';
const OTHER_CUSTOMER = 'https://other-customer.test';
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const CLIENT_SECRET = 'oauth-client-secret-never-shown';
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghijkl';

const STRICT = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'";

describe('the Connect page\'s files (GET /connect, /connect/oauth-return, /connect/*.js|css): headers, framing, no secrets', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ ENCRYPTION_KEY, METRICS_TOKEN });
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [CUSTOMER], enabledApps: [] } })).status).to.equal(200);
    const other = await otherTenant(gw.gateway.services.store);
    expect((await call({ url: gw.url, apiKey: other.apiKey }, 'PUT', '/v2/embedding', { body: { allowedOrigins: [OTHER_CUSTOMER], enabledApps: [] } })).status).to.equal(200);
  });
  after(async () => {
    await gw.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers });

  it('serves the page with a strict CSP (self only, no inline), nosniff, no referrer, no framing, an ETag to revalidate', async () => {
    const page = await get('/connect');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    // The page alone takes https images too: the company's logo (theme.logoUrl), from its own host.
    expect(page.headers.get('content-security-policy')).to.equal(`${STRICT.replace("img-src 'self'", "img-src 'self' https:")}; frame-ancestors 'none'`);
    expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(page.headers.get('x-frame-options')).to.equal('DENY');
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    // The SDK's popup talks to its opener: an opener policy would cut it off.
    expect(page.headers.get('cross-origin-opener-policy')).to.equal(null);
    const html = await page.text();
    expect(html).to.include('<script type="module" src="/connect/connect.js"></script>');
    expect(html, 'no inline script or style').not.to.match(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    const etag = page.headers.get('etag')!;
    expect(etag).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect((await get('/connect', { 'If-None-Match': etag })).status).to.equal(304);
  });

  it('may be framed only by the origin named in ?origin=, when some company allows it; never a list of origins', async () => {
    const ancestors = async (origin: string) => (await get(`/connect?origin=${encodeURIComponent(origin)}`)).headers.get('content-security-policy')!.split('; ').find((d) => d.startsWith('frame-ancestors'));
    expect(await ancestors(CUSTOMER)).to.equal(`frame-ancestors ${CUSTOMER}`);
    expect(await ancestors(OTHER_CUSTOMER)).to.equal(`frame-ancestors ${OTHER_CUSTOMER}`);
    const framed = await get(`/connect?origin=${encodeURIComponent(CUSTOMER)}`);
    expect(framed.headers.get('x-frame-options'), 'X-Frame-Options cannot name an origin: left out when one may frame').to.equal(null);
    for (const refused of ['https://nobody-allows-this.test', `${CUSTOMER}/path`, 'javascript:alert(1)', `${CUSTOMER} ${OTHER_CUSTOMER}`, "'self'", '*']) {
      expect(await ancestors(refused), refused).to.equal("frame-ancestors 'none'");
    }
  });

  it('serves the script, the style and the OAuth return page with their types, the same strict headers, never framed', async () => {
    for (const [path, type] of [
      ['/connect/connect.js', 'text/javascript; charset=utf-8'],
      ['/connect/connect.css', 'text/css; charset=utf-8'],
      ['/connect/oauth-return.js', 'text/javascript; charset=utf-8'],
      ['/connect/oauth-return', 'text/html; charset=utf-8'],
    ]) {
      const answer = await get(`${path}?origin=${encodeURIComponent(CUSTOMER)}`);
      expect(answer.status, path).to.equal(200);
      expect(answer.headers.get('content-type'), path).to.equal(type);
      expect(answer.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(answer.headers.get('referrer-policy'), path).to.equal('no-referrer');
      expect(answer.headers.get('content-security-policy'), path).to.equal(`${STRICT}; frame-ancestors 'none'`);
      expect(answer.headers.get('etag'), path).to.match(/^"/);
    }
  });

  it('answers 404 for any other name under /connect (no directory listing, no file outside the list)', async () => {
    for (const path of ['/connect/index.html', '/connect/nope.js', '/connect/..%2Fpackage.json', '/connect/%2e%2e%2fpackage.json']) {
      const answer = await get(path);
      expect(answer.status, path).to.equal(404);
      expect(((await answer.json()) as { success: boolean }).success, path).to.equal(false);
    }
  });

  it('serves every file of web/connect/, and none of them holds a secret of the gateway (API key, encryption key, client secret, metrics token)', async () => {
    expect(readdirSync(CONNECT_PAGE_DIR).sort()).to.deep.equal(Object.keys(CONNECT_FILES).sort());
    expect((await call(gw, 'PUT', '/v2/apps/slack/configuration', { body: { clientId: 'client-id', clientSecret: CLIENT_SECRET } })).status).to.equal(200);
    const secrets = [gw.apiKey, ENCRYPTION_KEY, Buffer.from(ENCRYPTION_KEY, 'base64').toString('hex'), CLIENT_SECRET, METRICS_TOKEN];
    const paths = ['/connect', '/connect/oauth-return', ...Object.keys(CONNECT_FILES).filter((f) => !f.endsWith('.html')).map((f) => `/connect/${f}`)];
    for (const path of paths) {
      const answer = await get(path);
      expect(answer.status, path).to.equal(200);
      const text = await answer.text() + JSON.stringify([...answer.headers]);
      for (const secret of secrets) expect(text, `${path} holds a secret`).not.to.include(secret);
    }
  });
});
