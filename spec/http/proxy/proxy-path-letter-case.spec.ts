import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');

/**
 * The router matches paths whatever their letter case, so /V2/Proxy/{id}/…
 * is a proxied request: everything that tells a proxied request apart by
 * its path must too.
 */
describe('the proxy: a path written in other letter case (/V2/Proxy/…) is a proxied request in every way', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let files: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    files = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'files', credentials: { apiKey: 'files-key-0123456789' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  afterEach(() => upstream.reset());

  it("sends the body on as it came, never read as the gateway's JSON (the app got an empty body, or the caller a 400 INVALID_JSON)", async () => {
    upstream.on('POST /files/v1/upload', (req) => ({ body: { got: req.body } }));
    for (const [prefix, body] of [
      ['/V2/Proxy', '{"name":"report.pdf"}'],
      ['/v2/PROXY', 'not JSON, and labelled so'],
      ['/V2/proxy', JSON.stringify({ big: 'x'.repeat(1_200_000) })],
    ] as const) {
      const answer = await send(gw, 'POST', `${prefix}/${files}/upload`, { headers: { 'content-type': 'application/json' }, body });
      expect(answer.status, `${prefix}: ${answer.text.slice(0, 200)}`).to.equal(200);
      expect(answer.body.got.length, prefix).to.equal(body.length);
    }
  });

  it("never logs the app's path: the request log line stops at the connection", async () => {
    upstream.on('GET /files/v1/users/ada@example.com', () => ({ body: {} }));
    expect((await send(gw, 'GET', `/V2/Proxy/${files}/users/ada@example.com?token=abc`)).status).to.equal(200);
    const lines = gw
      .logs()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"') && line.includes(files) && line.includes('"method":"GET"'));
    expect(lines).to.have.length(1);
    expect(JSON.parse(lines[0]!).path).to.equal(`/V2/Proxy/${files}/…`);
    expect(lines[0]).not.to.include('ada@example.com');
  });
});
