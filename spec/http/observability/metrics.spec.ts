import { expect } from 'chai';
import net from 'node:net';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { configProblem } from '../../helpers/config-problem.ts';
import { ROOT } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { parseSamples, sampleValue } from '../../helpers/prometheus.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { rawExchange } from '../../helpers/raw-http.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghijklmnop';
const RUN_ROUTE = '/v2/universal/apps/:appSlug/actions/:actionSlug/run';

describe('GET /metrics (Prometheus, prom-client)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;
  const run = (action: string, body: Record<string, unknown> = {}) => call(gw, 'POST', `/v2/universal/apps/shop/actions/${action}/run`, { body: { connectionId, ...body } });
  const scrape = async (): Promise<string> => {
    const response = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).to.equal(200);
    return await response.text();
  };

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({
      DEFINITIONS_DIR: defs.dir,
      EGRESS_ALLOW: '127.0.0.1/32',
      MAPPING_TIMEOUT_MS: '300',
      OUTBOUND_HEADERS_TIMEOUT_MS: '500',
      METRICS_TOKEN,
      METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1',
    });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'shop-key-abc' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  it('counts and times requests by route template, method and status; ids never become labels; an unknown path is "unmatched"', async () => {
    expect((await call(gw, 'GET', `/v2/connections/${connectionId}`)).status).to.equal(200);
    expect((await call(gw, 'GET', '/v2/connections/con_doesnotexist')).status).to.equal(404);
    for (const probe of ['/scan/1', '/scan/2', '/wp-admin/setup.php']) expect((await call(gw, 'GET', probe)).status).to.equal(404);
    const text = await scrape();
    expect(sampleValue(text, 'gateway_http_requests_total', { route: '/v2/connections/:connectionId', method: 'GET', status: '200' })).to.be.at.least(1);
    expect(sampleValue(text, 'gateway_http_requests_total', { route: '/v2/connections/:connectionId', method: 'GET', status: '404' })).to.equal(1);
    expect(sampleValue(text, 'gateway_http_request_duration_seconds_count', { route: '/v2/connections/:connectionId', method: 'GET', status: '200' })).to.be.at.least(1);
    expect(sampleValue(text, 'gateway_http_request_duration_seconds_bucket', { route: '/v2/connections/:connectionId', method: 'GET', status: '404', le: '+Inf' })).to.equal(1);
    // Three unknown paths are one series, not three.
    expect(sampleValue(text, 'gateway_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).to.equal(3);
    const companyId = (await gw.gateway.services.store.companies.find({}))[0]!.id;
    for (const id of [connectionId, companyId, 'con_doesnotexist', '/scan/1', 'wp-admin']) expect(text).not.to.include(id);
  });

  it('a run: app calls by app, action and upstream status with their latency, runs by outcome, store operations by collection and operation', async () => {
    upstream.on('GET /api/orders', () => ({ delayMs: 30, body: { result: { orders: [{ id: 'o1' }], next: null } } }));
    upstream.on('GET /api/orders/o1', () => ({ status: 500, body: { message: 'database on fire' } }));
    expect((await run('list-orders')).status).to.equal(200);
    const failed = await run('get-order', { arguments: { orderId: 'o1' } });
    expect(failed.body.success).to.equal(false);
    const text = await scrape();
    expect(sampleValue(text, 'gateway_app_calls_total', { app: 'shop', action: 'list-orders', status: '200' })).to.equal(1);
    expect(sampleValue(text, 'gateway_app_calls_total', { app: 'shop', action: 'get-order', status: '500' })).to.equal(1);
    expect(sampleValue(text, 'gateway_app_call_duration_seconds_count', { app: 'shop', action: 'list-orders', status: '200' })).to.equal(1);
    // The stand-in waited 30 ms before answering: the call took at least that, and the 25 ms bucket does not hold it.
    expect(sampleValue(text, 'gateway_app_call_duration_seconds_sum', { app: 'shop', action: 'list-orders', status: '200' })).to.be.at.least(0.03);
    expect(sampleValue(text, 'gateway_app_call_duration_seconds_bucket', { app: 'shop', action: 'list-orders', status: '200', le: '0.025' })).to.equal(0);
    expect(sampleValue(text, 'gateway_runs_total', { app: 'shop', action: 'list-orders', outcome: 'success' })).to.equal(1);
    expect(sampleValue(text, 'gateway_runs_total', { app: 'shop', action: 'get-order', outcome: 'app_error' })).to.equal(1);
    expect(sampleValue(text, 'gateway_http_requests_total', { route: RUN_ROUTE, method: 'POST', status: '200' })).to.equal(2);
    expect(sampleValue(text, 'gateway_store_operation_duration_seconds_count', { collection: 'connections', operation: 'findOne' })).to.be.at.least(2);
    expect(sampleValue(text, 'gateway_store_operation_duration_seconds_count', { collection: 'connections', operation: 'insert' })).to.equal(1);
  });

  it('rate-limit retries by app, mapping errors by reason, an upstream timeout by its kind', async () => {
    let busy = 0;
    upstream.on('GET /api/busy', () => (++busy <= 2 ? { body: { error: 'slow down' } } : { body: { items: [{ id: 1 }] } }));
    const limited = await run('list-busy');
    expect(limited.body.meta.retries).to.equal(2);
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [], next: null } } }));
    expect((await run('spin')).status).to.equal(502);
    upstream.on('GET /api/slow', () => ({ delayMs: 1500, body: [] }));
    expect((await run('slow')).status).to.equal(504);
    const text = await scrape();
    expect(sampleValue(text, 'gateway_rate_limit_retries_total', { app: 'shop' })).to.equal(2);
    expect(sampleValue(text, 'gateway_app_calls_total', { app: 'shop', action: 'list-busy', status: '200' })).to.equal(3);
    expect(sampleValue(text, 'gateway_mapping_errors_total', { reason: 'timeout' })).to.equal(1);
    expect(sampleValue(text, 'gateway_runs_total', { app: 'shop', action: 'spin', outcome: 'mapping_error' })).to.equal(1);
    expect(sampleValue(text, 'gateway_app_calls_total', { app: 'shop', action: 'slow', status: 'upstream_timeout' })).to.equal(1);
    expect(sampleValue(text, 'gateway_runs_total', { app: 'shop', action: 'slow', outcome: 'upstream_timeout' })).to.equal(1);
    expect(sampleValue(text, 'gateway_http_requests_total', { route: RUN_ROUTE, method: 'POST', status: '504' })).to.equal(1);
  });

  it('definition loads and the snapshot age; event-loop lag and process metrics (prom-client defaults)', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = await scrape();
    expect(sampleValue(text, 'gateway_definition_loads_total', { result: 'loaded' })).to.equal(1);
    expect(sampleValue(text, 'gateway_definitions_snapshot_age_seconds')).to.be.greaterThan(0.05).and.lessThan(120);
    expect(sampleValue(text, 'nodejs_eventloop_lag_seconds')).to.be.a('number');
    expect(sampleValue(text, 'nodejs_eventloop_lag_p99_seconds')).to.be.a('number');
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).to.be.greaterThan(0);
    expect(sampleValue(text, 'process_resident_memory_bytes')).to.be.greaterThan(0);
  });

  it('on the main port only with the METRICS_TOKEN (401 in the error shape without it, or with another)', async () => {
    const missing = await fetch(`${gw.url}/metrics`);
    expect(missing.status).to.equal(401);
    expect(missing.headers.get('www-authenticate')).to.equal('Bearer');
    expect(await missing.json()).to.deep.equal({
      success: false,
      error: { code: 'UNAUTHORIZED', message: 'GET /metrics needs the METRICS_TOKEN as a Bearer token (Authorization: Bearer <METRICS_TOKEN>)' },
    });
    for (const wrong of [`${METRICS_TOKEN}x`, METRICS_TOKEN.slice(0, -1), gw.apiKey]) {
      const refused = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${wrong}` } });
      expect(refused.status, wrong).to.equal(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('UNAUTHORIZED');
    }
    const served = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(served.status).to.equal(200);
    expect(served.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
    const text = await served.text();
    expect(parseSamples(text).length).to.be.greaterThan(20);
    expect(text).to.include('# TYPE gateway_http_request_duration_seconds histogram');
    expect(gw.logs()).not.to.include(METRICS_TOKEN);
  });

  it('on METRICS_PORT without authentication, and nothing else there (404 in the error shape)', async () => {
    const port = gw.gateway.metricsPort!;
    expect(port).to.be.a('number').and.not.equal(gw.gateway.port);
    const served = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(served.status).to.equal(200);
    expect(sampleValue(await served.text(), 'gateway_definition_loads_total', { result: 'loaded' })).to.equal(1);
    const other = await fetch(`http://127.0.0.1:${port}/v2/connections`, { headers: { authorization: `Bearer ${gw.apiKey}` } });
    expect(other.status).to.equal(404);
    expect(await other.json()).to.deep.equal({ success: false, error: { code: 'NOT_FOUND', message: 'no route for GET /v2/connections' } });
    // Its server is the gateway's (http-server.ts): an HTTP/1.1 request without Host is refused in the error shape there too.
    const hostless = await rawExchange(`http://127.0.0.1:${port}`, 'GET /metrics HTTP/1.1\r\n\r\n');
    expect(hostless.status).to.equal(400);
    expect(hostless.headers['x-request-id']).to.be.a('string');
    expect(hostless.body).to.deep.equal({ success: false, error: { code: 'BAD_REQUEST', message: 'an HTTP/1.1 request must have a Host header' } });
  });
});

describe('GET /metrics when neither METRICS_PORT nor METRICS_TOKEN is set', function () {
  this.timeout(30_000);
  let first: TestGateway;
  let second: TestGateway;
  before(async () => {
    first = await startTestGateway();
    second = await startTestGateway({ METRICS_TOKEN });
  });
  after(async () => {
    await first.stop();
    await second.stop();
  });

  it('is not served: 404 in the error shape, whatever token is sent', async () => {
    for (const headers of [{}, { authorization: `Bearer ${METRICS_TOKEN}` }, { authorization: `Bearer ${first.apiKey}` }] as Record<string, string>[]) {
      const response = await fetch(`${first.url}/metrics`, { headers });
      expect(response.status).to.equal(404);
      expect(await response.json()).to.deep.equal({ success: false, error: { code: 'NOT_FOUND', message: 'no route for GET /metrics' } });
    }
    expect(first.gateway.metricsPort).to.equal(undefined);
    // Nothing is collected that nobody can read.
    expect(first.gateway.services.metrics).to.equal(undefined);
  });

  it('each gateway in a process has a registry of its own: one counts what it served, not the other', async () => {
    for (let i = 0; i < 3; i++) await call(first, 'GET', '/v2/connections');
    const response = await fetch(`${second.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await response.text();
    expect(sampleValue(text, 'gateway_http_requests_total', { route: '/v2/connections', method: 'GET' })).to.equal(undefined);
    expect(sampleValue(text, 'gateway_definition_loads_total', { result: 'loaded' })).to.equal(1);
  });
});

describe('METRICS_* configuration', () => {
  it('refuses a short METRICS_TOKEN, a METRICS_PORT out of range or equal to PORT, naming the variable', () => {
    expect(configProblem({ METRICS_TOKEN: 'short' })).to.equal(
      'METRICS_TOKEN must be 32 to 512 characters of A-Z, a-z, 0-9, ".", "_", "~", "+", "/", "=" or "-" (e.g. `openssl rand -hex 32`)',
    );
    expect(configProblem({ METRICS_TOKEN: `${'a'.repeat(40)} b` })).to.match(/^METRICS_TOKEN must be 32 to 512 characters/);
    expect(configProblem({ METRICS_PORT: '70000' })).to.equal('METRICS_PORT must be an integer from 0 to 65535 (got "70000")');
    expect(configProblem({ PORT: '9000', METRICS_PORT: '9000' })).to.equal('METRICS_PORT must differ from PORT (9000): the metrics listener is a port of its own');
  });

  it('a METRICS_PORT that cannot be opened stops the start, naming it, and closes what was started (the DATA_DIR can be used at once)', async function () {
    this.timeout(30_000);
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    const { dir, cleanup } = await tempDir();
    try {
      const failed = await startTestGateway({ DATA_DIR: dir, METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' }).then(
        () => null,
        (error: Error) => error,
      );
      expect(failed?.message).to.match(new RegExp(`^METRICS_PORT ${port} on METRICS_HOST 127\\.0\\.0\\.1 cannot be opened: listen EADDRINUSE`));
      const next = await startTestGateway({ DATA_DIR: dir });
      await next.stop({ keepData: true });
    } finally {
      busy.close();
      await cleanup();
    }
  });
});
