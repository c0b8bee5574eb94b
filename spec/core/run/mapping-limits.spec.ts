import { expect } from 'chai';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const DOUBLE = '$f := function($s,$n){ $n=0 ? $s : $f($s & $s, $n-1) }';

function action(id: string, rest: string): string {
  return `id: ${id}\nslug: ${id}\nname: ${id}\noperation: list\nmethod: GET\npath: /items\n${rest}`;
}

/** Hostile actions added to the shop fixture; the doubling counts go well past the small limits the gateway runs with here. */
const ACTIONS: Record<string, string> = {
  'shop/versions/1/actions/doubling.yaml': action('doubling', `response: |\n  ( ${DOUBLE}; { "data": [$length($uppercase($f("ab", 22)))] } )\n`),
  'shop/versions/1/actions/mapper-bloat.yaml': action(
    'mapper-bloat',
    `arguments:\n  - key: q\n    dataType: String\n    location: Query\n    mapper: |\n      ( ${DOUBLE}; $f(value, 22) )\nresponse: |\n  { "data": [] }\n`,
  ),
  'shop/versions/1/actions/echo-bloat.yaml': action('echo-bloat', 'response: |\n  { "data": [{ "a": body.s, "b": body.s, "c": body.s, "d": body.s }] }\n'),
  'shop/versions/1/actions/redos.yaml': action('redos', 'response: |\n  { "data": [{ "matched": $count($match(body.value, /(a+)+$/)) }] }\n'),
};

describe('runs whose mappings try to crash or bloat the gateway', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;
  const run = (actionSlug: string, args: Record<string, unknown> = {}) =>
    call(gw, 'POST', `/v2/universal/apps/shop/actions/${actionSlug}/run`, { body: { connectionId, arguments: args } });

  /** /health polled while `work` runs: every answer's status and the slowest. */
  async function whilePolling<T>(work: Promise<T>): Promise<{ result: T; statuses: number[]; slowestMs: number }> {
    let done = false;
    const statuses: number[] = [];
    let slowestMs = 0;
    const poll = (async () => {
      while (!done) {
        const t0 = performance.now();
        const response = await fetch(`${gw.url}/health`, { signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
        slowestMs = Math.max(slowestMs, performance.now() - t0);
        statuses.push(response?.status ?? 0);
        await response?.text();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const result = await work.finally(() => (done = true));
    await poll;
    return { result, statuses, slowestMs };
  }

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, ACTIONS);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({
      DEFINITIONS_DIR: defs.dir,
      EGRESS_ALLOW: '127.0.0.1/32',
      MAPPING_TIMEOUT_MS: '2000',
      MAPPING_MAX_STRING: '100000',
      MAPPING_MAX_RESULT_BYTES: '1000000',
    });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'shop-secret-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  it('a response mapping that doubles a string answers 502 MAPPING_ERROR, reason size, and the gateway still serves', async () => {
    upstream.on('GET /api/items', () => ({ body: {} }));
    const { status, body } = await run('doubling');
    expect(status).to.equal(502);
    expect(body.success).to.equal(false);
    expect(body.meta.error.code).to.equal('MAPPING_ERROR');
    expect(body.meta.error.details).to.include({ reason: 'size', setting: 'MAPPING_MAX_STRING', limit: 100_000 });
    expect(body.meta.error.message).to.match(/^shop\/versions\/1\/actions\/doubling\.yaml:\d+:\d+: the mapping built a string of more than 100000 characters \(MAPPING_MAX_STRING\)$/);
    expect((await call(gw, 'GET', '/health')).status).to.equal(200);
  });

  it('a mapper that doubles its value answers 400 naming the argument, and nothing is sent', async () => {
    upstream.on('GET /api/items', () => ({ body: {} }));
    const { status, body } = await run('mapper-bloat', { q: 'ab' });
    expect(status).to.equal(400);
    expect(body.error.code).to.equal('VALIDATION_ERROR');
    expect(JSON.stringify(body.error)).to.include('q').and.to.include('MAPPING_MAX_STRING');
    expect(JSON.stringify(body).length).to.be.below(10_000);
    expect(upstream.calls('GET /api/items')).to.have.length(0);
  });

  it('a mapping that echoes an upstream value into a result over MAPPING_MAX_RESULT_BYTES answers 502, reason size', async () => {
    upstream.on('GET /api/items', () => ({ body: { s: 'x'.repeat(300_000) } }));
    const { status, body } = await run('echo-bloat');
    expect(status).to.equal(502);
    expect(body.meta.error.code).to.equal('MAPPING_ERROR');
    expect(body.meta.error.details).to.include({ reason: 'size', setting: 'MAPPING_MAX_RESULT_BYTES', limit: 1_000_000 });
  });

  it("(a+)+$ in $match on the upstream's value answers at once, and /health with it", async () => {
    // 28 a's: over 10 s of backtracking for V8's own engine, during which nothing else would be served
    upstream.on('GET /api/items', () => ({ body: { value: 'a'.repeat(28) + '!' } }));
    const t0 = performance.now();
    const { result, statuses, slowestMs } = await whilePolling(run('redos'));
    const ms = performance.now() - t0;
    expect(result.status).to.equal(200);
    expect(result.body.data).to.deep.equal([{ matched: 0 }]);
    expect(statuses.every((s) => s === 200)).to.equal(true);
    // generous bounds: the gateway runs in this process, so a backtracking engine holds this test's event loop too (45 s here)
    expect(ms, 'the run').to.be.below(5000);
    expect(slowestMs, '/health').to.be.below(3000);
  });

  it('eight runaway mappings in parallel all end in MAPPING_ERROR while /health keeps answering', async () => {
    upstream.on('GET /api/items', () => ({ body: {} }));
    const { result, statuses, slowestMs } = await whilePolling(Promise.all(Array.from({ length: 8 }, () => run('doubling'))));
    for (const { status, body } of result) {
      expect(status).to.equal(502);
      expect(body.meta.error.code).to.equal('MAPPING_ERROR');
      expect(body.meta.error.details.reason).to.equal('size');
    }
    expect(statuses.length).to.be.above(0);
    expect(statuses.every((s) => s === 200)).to.equal(true);
    expect(slowestMs, 'generous: a /health stuck behind the runaways waits for all eight').to.be.below(3000);
    expect((await run('doubling')).status, 'and it still runs mappings').to.equal(502);
  });
});
