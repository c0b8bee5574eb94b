import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { classicScript, SDK_MODULE_FILE } from '../../../../engine/http/pages/sdk/sdk-assets.ts';
import { startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';

const NAMES = ['GatewayConnectError', 'disconnect', 'listApps', 'listConnections', 'open', 'proxy', 'runAction'];

describe('GET /sdk/connect.js and /sdk/connect.mjs: the browser SDK', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.stop();
  });

  for (const [file, kind] of [['connect.js', 'classic script'], ['connect.mjs', 'ES module']] as const) {
    it(`serves the ${kind} to any origin without credentials: JavaScript, nosniff, an ETag, 304 when unchanged`, async () => {
      const answer = await fetch(`${gw.url}/sdk/${file}`, { headers: { Origin: 'https://any.customer.test' } });
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
      expect(answer.headers.get('access-control-allow-origin')).to.equal('*');
      expect(answer.headers.get('access-control-allow-credentials')).to.equal(null);
      expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(answer.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
      const etag = answer.headers.get('etag')!;
      expect(etag).to.match(/^"[\w-]{27}"$/);
      const text = await answer.text();
      expect(text).to.include('gateway-connect');
      const again = await fetch(`${gw.url}/sdk/${file}`, { headers: { 'If-None-Match': etag } });
      expect(again.status).to.equal(304);
      expect(await again.text()).to.equal('');
      // No auth needed, and no secret in it.
      expect(text).not.to.include(gw.apiKey);
    });
  }

  it('gzips it for a client that takes gzip (the same text), and sends it plain otherwise', async () => {
    const { request } = await import('node:http');
    const { gunzipSync } = await import('node:zlib');
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        request(`${gw.url}/sdk/connect.js`, { headers: { 'Accept-Encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        }).on('error', reject).end();
      });
    const zipped = await raw('gzip, deflate, br');
    const plain = await raw('identity');
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(zipped.headers.vary).to.equal('Accept-Encoding');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(gunzipSync(zipped.body).equals(plain.body)).to.equal(true);
    expect(zipped.body.length).to.be.below(plain.body.length / 2);
  });

  it('serves the module as it is in web/sdk/connect.mjs, and the classic script made from it, with different ETags', async () => {
    const source = readFileSync(SDK_MODULE_FILE, 'utf8');
    const module = await fetch(`${gw.url}/sdk/connect.mjs`);
    const classic = await fetch(`${gw.url}/sdk/connect.js`);
    expect(await module.text()).to.equal(source);
    expect(await classic.text()).to.equal(classicScript(source));
    expect(module.headers.get('etag')).not.to.equal(classic.headers.get('etag'));
  });

  it('the classic script defines window.GatewayConnect with exactly the module\'s exports, and leaks nothing else', async () => {
    const text = await (await fetch(`${gw.url}/sdk/connect.js`)).text();
    const window: Record<string, unknown> = {};
    const context = vm.createContext(window);
    vm.runInContext(text, context);
    const api = vm.runInContext('globalThis.GatewayConnect', context) as Record<string, unknown>;
    expect(Object.keys(api).sort()).to.deep.equal(NAMES);
    expect(Object.isFrozen(api)).to.equal(true);
    for (const name of NAMES) expect(api[name]).to.be.a('function');
    expect(vm.runInContext('Object.keys(globalThis)', context)).to.deep.equal(['GatewayConnect']);
    const source = readFileSync(SDK_MODULE_FILE, 'utf8');
    expect(source.match(/\nexport \{([^}]*)\};\s*$/)![1]!.split(',').map((n) => n.trim()).sort()).to.deep.equal(NAMES);
  });

  it('refuses to make a classic script from a module that imports, exports elsewhere or has no closing export list', () => {
    expect(() => classicScript("import x from './x.mjs';\nfunction open() {}\nexport { open };\n")).to.throw(/may import nothing/);
    expect(() => classicScript('export function open() {}\nexport { open };\n')).to.throw(/may import nothing/);
    expect(() => classicScript('function open() {}\n')).to.throw(/must end with one `export \{ \.\.\. \};` list/);
    expect(() => classicScript('function open() {}\nexport { open as start };\n')).to.throw(/plain identifiers/);
    expect(classicScript('function open() {}\nexport { open };\n')).to.include('globalThis.GatewayConnect = Object.freeze({ open });');
  });
});
