import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { rawExchange } from '../../helpers/raw-http.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const REQUEST_TIMEOUT_MS = 1000;
const HEADERS_TIMEOUT_MS = 500;
const KEEP_ALIVE_TIMEOUT_MS = 300;
const TIMED_OUT = `the request was not received in time (headers within ${HEADERS_TIMEOUT_MS} ms, the whole request within ${REQUEST_TIMEOUT_MS} ms)`;

/**
 * Slow clients are cut by REQUEST_TIMEOUT_MS and HEADERS_TIMEOUT_MS (small here);
 * a request received in time may take as long as its work takes.
 */
describe('slow clients', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/run'), upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({
      DEFINITIONS_DIR: defs.dir,
      EGRESS_ALLOW: '127.0.0.1/32',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    });
  });
  after(async () => {
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs();
  });

  it('answers 408 REQUEST_TIMEOUT and closes the connection when a body stalls past REQUEST_TIMEOUT_MS', async () => {
    const head = `POST /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;
    // A byte every 100 ms: 100 bytes would take 10 s.
    const answer = await rawExchange(gw.url, head, { drip: Array.from({ length: 100 }, () => ' '), dripEveryMs: 100, capMs: 8000 });
    expect(answer.status, answer.text).to.equal(408);
    expect(answer.body).to.deep.equal({ success: false, error: { code: 'REQUEST_TIMEOUT', message: TIMED_OUT } });
    expect(answer.headers.connection).to.equal('close');
    expect(answer.closed).to.equal(true);
  });

  it('answers 408 when headers come a line at a time past HEADERS_TIMEOUT_MS', async () => {
    const answer = await rawExchange(gw.url, 'GET /health HTTP/1.1\r\n', { drip: Array.from({ length: 100 }, (_, i) => `X-${i}: v\r\n`), dripEveryMs: 100, capMs: 8000 });
    expect(answer.status, answer.text).to.equal(408);
    expect(answer.body.error.code).to.equal('REQUEST_TIMEOUT');
    expect(answer.closed).to.equal(true);
  });

  it('closes a connection that sends nothing', async () => {
    const answer = await rawExchange(gw.url, '', { capMs: 8000 });
    expect(answer.closed).to.equal(true);
  });

  it('closes an idle keep-alive connection after KEEP_ALIVE_TIMEOUT_MS', async () => {
    // Node's default would hold it 5 s.
    const answer = await rawExchange(gw.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n', { capMs: 3000 });
    expect(answer.status).to.equal(200);
    expect(answer.text).not.to.include('408');
    expect(answer.closed).to.equal(true);
  });

  it('does not cut a request received in time whose work takes longer than REQUEST_TIMEOUT_MS (a run on a slow app)', async () => {
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'k' } } })).body.data.id;
    upstream.on('GET /api/slow', () => ({ delayMs: REQUEST_TIMEOUT_MS * 3, body: [{ id: 'late' }] }));
    const { status, body } = await call(gw, 'POST', '/v2/universal/apps/shop/actions/slow/run', { body: { connectionId } });
    expect(status).to.equal(200);
    expect(body.data).to.deep.equal([{ id: 'late' }]);
  });
});
