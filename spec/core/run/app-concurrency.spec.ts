import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const REQUEST_TIMEOUT_MS = 1500;

describe('runs of an app that takes a few calls at once (api.yaml concurrency)', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;
  /** Calls the app holds until the test opens the gate, and the most it held at once. */
  let inFlight = 0;
  let mostAtOnce = 0;
  let open: () => void = () => {};
  let gate: Promise<void>;
  const closeGate = () => (gate = new Promise((resolve) => (open = resolve)));
  const run = () => call(gw, 'POST', '/v2/universal/apps/shop/actions/slow/run', { body: { connectionId, arguments: {} } });
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  before(async () => {
    await upstream.start();
    const api = await fs.readFile(path.join(FIXTURE, 'shop/versions/1/api.yaml'), 'utf8');
    const defs = await definitionsFor(FIXTURE, upstream.url, { 'shop/versions/1/api.yaml': `${api.replaceAll('__UPSTREAM__', upstream.url)}concurrency: 2\n` });
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', OUTBOUND_QUEUE_LENGTH: '2', REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'shop-secret-key' } } })).body.data.id;
  });
  beforeEach(() => {
    inFlight = 0;
    mostAtOnce = 0;
    closeGate();
    upstream.on('GET /api/slow', async () => {
      mostAtOnce = Math.max(mostAtOnce, ++inFlight);
      await gate;
      inFlight--;
      return { body: [{ id: 'o_1' }] };
    });
  });
  afterEach(() => {
    open();
    upstream.reset();
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });

  it('calls beyond it wait their turn: the app never has more than 2 at once, and every run answers 200', async () => {
    const runs = Array.from({ length: 4 }, run);
    await until(() => inFlight === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(upstream.calls('GET /api/slow')).to.have.length(2);
    open();
    const answers = await Promise.all(runs);
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200]);
    expect(answers.map((a) => a.body.data)).to.deep.equal(Array.from({ length: 4 }, () => [{ id: 'o_1' }]));
    expect(mostAtOnce).to.equal(2);
  });

  it('a call that finds the queue full is answered 503 UPSTREAM_BUSY at once, with Retry-After, naming the app, its concurrency and the setting', async () => {
    const admitted = Array.from({ length: 4 }, run); // 2 at the app, 2 waiting: the queue (OUTBOUND_QUEUE_LENGTH 2) is full
    await until(() => inFlight === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await run();
    expect(refused.status).to.equal(503);
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    expect(refused.body.success).to.equal(false);
    expect(refused.body.error.code).to.equal('UPSTREAM_BUSY');
    expect(refused.body.error.message).to.match(/^shop takes 2 calls at once per connection \(api\.yaml concurrency\) and connection \S+ has 2 more waiting \(OUTBOUND_QUEUE_LENGTH\); try again in \d+ s$/);
    expect(refused.body.error.details).to.include({ app: 'shop', limit: 2, queued: 2 });
    expect(upstream.calls('GET /api/slow')).to.have.length(2);
    open();
    expect((await Promise.all(admitted)).map((a) => a.status)).to.deep.equal([200, 200, 200, 200]);
  });

  it("a waiting call gives up at the run's deadline (REQUEST_TIMEOUT_MS) with 503 UPSTREAM_BUSY", async () => {
    const held = [run(), run()];
    await until(() => inFlight === 2);
    const started = performance.now();
    const waited = await run();
    expect(performance.now() - started).to.be.at.least(REQUEST_TIMEOUT_MS - 200);
    expect(waited.status).to.equal(503);
    expect(waited.body.error.code).to.equal('UPSTREAM_BUSY');
    expect(waited.body.error.message).to.match(/had every one in use until the run's deadline/);
    open();
    expect((await Promise.all(held)).map((a) => a.status)).to.deep.equal([200, 200]);
  });

  it("calls that wait until the deadline are told Retry-After by the calls ahead of each: the front of the queue no later than the back", async () => {
    const held = [run(), run()];
    await until(() => inFlight === 2);
    const front = run();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const back = run(); // the queue (OUTBOUND_QUEUE_LENGTH 2): front, then back; both reach the deadline with every slot held
    const answers = await Promise.all([front, back]);
    expect(answers.map((a) => a.status)).to.deep.equal([503, 503]);
    const retryAfter = answers.map((a) => Number(a.headers.get('retry-after')));
    // Nobody is ahead of the front one and one call is ahead of the back one; 2 at once at ~1 s a call (no call finished yet): 1 s each.
    expect(retryAfter).to.deep.equal([1, 1]);
    expect(answers.map((a) => a.body.error.message.match(/try again in (\d+) s$/)?.[1])).to.deep.equal(['1', '1']);
    open();
    expect((await Promise.all(held)).map((a) => a.status)).to.deep.equal([200, 200]);
  });

  it("the proxy takes the same slots as the runs: a proxied call waits its turn, its slot is given back when the answer's body is done, and a full queue is 503 UPSTREAM_BUSY", async () => {
    const proxied = () => call(gw, 'GET', `/v2/proxy/${connectionId}/slow`);
    const runs = [run(), run()];
    await until(() => inFlight === 2);
    const waiting = [proxied(), proxied()]; // the queue (OUTBOUND_QUEUE_LENGTH 2) is full
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(upstream.calls('GET /api/slow')).to.have.length(2);
    const refused = await proxied();
    expect(refused.status).to.equal(503);
    expect(refused.body.error.code).to.equal('UPSTREAM_BUSY');
    expect(refused.body.error.details).to.include({ app: 'shop', limit: 2, queued: 2 });
    open();
    expect((await Promise.all(runs)).map((a) => a.status)).to.deep.equal([200, 200]);
    const answers = await Promise.all(waiting);
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200]);
    expect(answers.map((a) => a.body)).to.deep.equal([[{ id: 'o_1' }], [{ id: 'o_1' }]]);
    expect(mostAtOnce).to.equal(2);
    // Every slot came back: two more runs go straight through.
    expect((await Promise.all([run(), run()])).map((a) => a.status)).to.deep.equal([200, 200]);
  });
});
