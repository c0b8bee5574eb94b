import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { viewerPackageDir } from '../../../../engine/http/pages/api-docs/viewer-assets.ts';

describe('GET /docs (the API pages, served without a CDN)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.stop();
  });

  it('answers an HTML page, without authentication, that loads only this origin\'s files (no inline script or style)', async () => {
    const response = await fetch(`${gw.url}/docs`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const html = await response.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).to.include('/docs/assets/swagger-ui-bundle.js').and.include('/docs/viewer.js');
    expect(sources.filter((s) => !s.startsWith('/')), 'a file from another origin').to.deep.equal([]);
    expect(html).not.to.match(/<script>|<script [^>]*>[^<]|<style|style=/);
    for (const source of sources) expect((await fetch(gw.url + source)).status, source).to.equal(200);
  });

  it('sends a Content-Security-Policy allowing only its own origin, and no framing or sniffing', async () => {
    for (const path of ['/docs', '/docs/viewer.js', '/docs/assets/swagger-ui-bundle.js']) {
      const headers = (await fetch(gw.url + path)).headers;
      const csp = headers.get('content-security-policy')!;
      expect(csp, path).to.include("default-src 'none'").and.include("script-src 'self'").and.include("style-src 'self'").and.include("connect-src 'self'").and.include("frame-ancestors 'none'");
      expect(csp, path).not.to.match(/unsafe-inline|unsafe-eval|https?:|\*/);
      expect(headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(headers.get('x-frame-options'), path).to.equal('DENY');
    }
  });

  it('offers both OpenAPI documents in the viewer\'s switcher, v1 first', async () => {
    const script = await (await fetch(`${gw.url}/docs/viewer.js`)).text();
    expect(script).to.include('[{"name":"v1","url":"/v1/openapi.json"},{"name":"v2","url":"/v2/openapi.json"}]');
    // No badge from validator.swagger.io: the viewer would send the document there.
    expect(script).to.include('validatorUrl: null');
  });

  it('serves Swagger UI\'s bundle from the installed package, gzipped when the client accepts it, with its licence beside it', async () => {
    const original = readFileSync(`${viewerPackageDir()}/swagger-ui-bundle.js`);
    const plain = await fetch(`${gw.url}/docs/assets/swagger-ui-bundle.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).to.equal(null);
    expect(Buffer.from(await plain.arrayBuffer()).equals(original)).to.equal(true);
    // Raw bytes as sent: node's http keeps the encoding, where fetch would decode it.
    const { default: http } = await import('node:http');
    const zipped = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      http.get(`${gw.url}/docs/assets/swagger-ui-bundle.js`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    expect(zipped.encoding).to.equal('gzip');
    expect(zipped.body.length).to.be.lessThan(original.length / 2);
    expect(gunzipSync(zipped.body).equals(original)).to.equal(true);
    const licence = await fetch(`${gw.url}/docs/assets/LICENSE`);
    expect(licence.status).to.equal(200);
    expect(await licence.text()).to.include('Apache License');
    expect(await (await fetch(`${gw.url}/docs/assets/NOTICE`)).text()).to.include('SmartBear');
  });

  it('answers 304 to a client holding the same version (ETag), so a reload does not fetch 1.5 MB again', async () => {
    const first = await fetch(`${gw.url}/docs/assets/swagger-ui.css`);
    const etag = first.headers.get('etag')!;
    expect(etag).to.match(/^"swagger-ui-dist-\d+\.\d+\.\d+-swagger-ui\.css"$/);
    const again = await fetch(`${gw.url}/docs/assets/swagger-ui.css`, { headers: { 'if-none-match': etag } });
    expect(again.status).to.equal(304);
  });

  it('serves only the viewer\'s own files: anything else under /docs/assets is 404 NOT_FOUND, never a file of the package or the disk', async () => {
    for (const path of ['/docs/assets/package.json', '/docs/assets/index.js', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/swagger-ui-bundle.js.map']) {
      const response = await fetch(gw.url + path);
      expect(response.status, path).to.equal(404);
      expect(((await response.json()) as any).error.code, path).to.equal('NOT_FOUND');
    }
  });

  it('answers the same page at /docs/ (its files are named from the root, so they load from either)', async () => {
    const response = await fetch(`${gw.url}/docs/`);
    expect(response.status).to.equal(200);
    expect(await response.text()).to.equal(await (await fetch(`${gw.url}/docs`)).text());
  });
});
