import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/api-timeout');

describe("api.yaml timeoutMs: how long one call to the app may take", function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let connectionId: string;
  const run = () => call(gw, 'POST', '/v2/universal/apps/slow/actions/list-things/run', { body: { connectionId, arguments: {} } });

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'slow', credentials: { apiKey: 'k' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  afterEach(() => upstream.reset());

  it('answers 504 UPSTREAM_TIMEOUT naming api.yaml timeoutMs when the app takes longer, without waiting for it', async () => {
    upstream.on('GET /api/slow/things', () => ({ body: [], delayMs: 2000 }));
    const started = Date.now();
    const { status, body } = await run();
    expect(status).to.equal(504);
    expect(body.error.code).to.equal('UPSTREAM_TIMEOUT');
    expect(body.error.message).to.match(/did not complete the response within 300 ms \(api\.yaml timeoutMs\)$/);
    expect(Date.now() - started).to.be.below(1500);
  });

  it('answers within the limit as usual', async () => {
    upstream.on('GET /api/slow/things', () => ({ body: [{ id: 1 }], delayMs: 20 }));
    const { status, body } = await run();
    expect(status).to.equal(200);
    expect(body.data).to.deep.equal([{ id: 1 }]);
  });
});
