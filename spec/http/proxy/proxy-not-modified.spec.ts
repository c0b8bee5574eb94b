import { expect } from 'chai';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');

/**
 * An app that answers a conditional GET 304 with the Content-Length its 200
 * would have had, as RFC 9110 §8.6 allows and ASP.NET and HTTP.sys do (raw
 * bytes: Node's own server leaves it out).
 */
function notModifiedApp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = net.createServer((socket) => {
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      head = '';
      socket.write('HTTP/1.1 304 Not Modified\r\netag: "v7"\r\ncache-control: private, max-age=60\r\ncontent-length: 1234\r\n\r\n');
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        stop: () =>
          new Promise<void>((done) => {
            server.close(() => done());
          }),
      }),
    ),
  );
}

describe('the proxy: a 304 Not Modified carrying the Content-Length of its 200', function () {
  this.timeout(30_000);
  let app: { url: string; stop: () => Promise<void> };
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let files: string;

  before(async () => {
    app = await notModifiedApp();
    const defs = await definitionsFor(FIXTURE, app.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    files = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'files', credentials: { apiKey: 'files-key-0123456789' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await app.stop();
    await cleanup();
  });

  it("is answered as the app's 304, with its ETag, not as a broken answer (502)", async () => {
    const answer = await send(gw, 'GET', `/v2/proxy/${files}/files/report.pdf`, { headers: { 'if-none-match': '"v7"' } });
    expect(answer.status, answer.text).to.equal(304);
    expect(answer.headers.etag).to.equal('"v7"');
    expect(answer.headers['proxy-status']).to.equal('integration-gateway; received-status=304');
    expect(answer.text).to.equal('');
  });
});
