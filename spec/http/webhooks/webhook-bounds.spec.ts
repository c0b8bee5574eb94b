import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { sampleValue } from '../../helpers/prometheus.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { eventually } from '../../support/eventually.ts';
import { publishEvent } from '../../../engine/tenancy/webhooks/publish.ts';
import type { TenancyServices } from '../../../engine/tenancy/tenancy-services.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const METRICS_TOKEN = 'webhook-bounds-metrics-token-0123456789ab';

/** A gateway of its own per case (settings differ), its receivers on the upstream, its company's id. */
async function gatewayWith(upstream: Upstream, env: Record<string, string>) {
  const defs = await definitionsFor(FIXTURE, upstream.url);
  const gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', WEBHOOK_POLL_INTERVAL_MS: '20', METRICS_TOKEN, ...env });
  const companyId = (await gw.gateway.services.store.apiKeys.find({})).at(0)!.companyId;
  return {
    gw,
    /** Writes an event as a change of a connection would. */
    publish: (n: number) => publishEvent(gw.gateway.services as unknown as TenancyServices, companyId, { type: 'connection.created', data: { id: `con_${n}` } }),
    metric: async (name: string, labels: Record<string, string>) =>
      sampleValue(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text(), name, labels) ?? 0,
    deliveries: async (id: string) => (await documentedCall(gw, 'GET', `/v2/webhooks/${id}/deliveries`)).body.data as any[],
    register: async (route: string) => {
      const { status, body } = await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}${route}` } });
      expect(status, JSON.stringify(body)).to.equal(201);
      return body.data.id as string;
    },
    async stop() {
      await gw.stop();
      await defs.cleanup();
    },
  };
}

describe('webhook deliveries are bounded: pending per endpoint, attempts per delivery, endpoints failing for a whole window', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  let running: Awaited<ReturnType<typeof gatewayWith>> | null = null;
  before(async () => {
    await upstream.start();
  });
  after(async () => {
    await upstream.stop();
  });
  afterEach(async () => {
    await running?.stop();
    running = null;
    upstream.reset();
  });

  it('keeps at most 20 endpoints a company however many are created at once: the rest are 409 CONFLICT', async () => {
    running = await gatewayWith(upstream, {});
    const { gw } = running;
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) => documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}/hook/${i}` } })));
    expect(created.filter((c) => c.status === 201)).to.have.length(20);
    const refused = created.filter((c) => c.status !== 201);
    expect(refused.map((c) => c.status)).to.deep.equal(Array(20).fill(409));
    expect(refused[0]!.body.error).to.deep.equal({ code: 'CONFLICT', message: 'a company has at most 20 webhook endpoints; delete one first' });
    expect((await documentedCall(gw, 'GET', '/v2/webhooks')).body.data).to.have.length(20);
  });

  it('keeps at most WEBHOOK_MAX_PENDING pending deliveries per endpoint: the oldest are dropped, recorded, counted and logged', async () => {
    running = await gatewayWith(upstream, { WEBHOOK_MAX_PENDING: '5', WEBHOOK_RETRY_BASE_MS: '60000', WEBHOOK_CONCURRENCY: '1' });
    upstream.on('POST /hooks/failing', () => ({ status: 500 }));
    const id = await running.register('/hooks/failing');
    for (let n = 1; n <= 12; n++) await running.publish(n);
    const list = await running.deliveries(id);
    expect(list.filter((d) => d.status === 'pending')).to.have.length(5);
    const dropped = list.filter((d) => d.status === 'failed');
    expect(dropped).to.have.length(7);
    for (const d of dropped) expect(d.error).to.equal('dropped unsent: 5 deliveries were already pending for this endpoint (WEBHOOK_MAX_PENDING)');
    // The newest are the ones kept.
    const pendingEvents = list.filter((d) => d.status === 'pending').map((d) => d.createdOn).sort();
    expect(pendingEvents[0]! >= dropped.map((d) => d.createdOn).sort().at(-1)!).to.equal(true);
    expect(await running.metric('gateway_webhook_deliveries_dropped_total', { reason: 'max_pending' })).to.equal(7);
    expect(running.gw.logs()).to.include('webhook deliveries dropped: the endpoint has WEBHOOK_MAX_PENDING pending');
    expect(running.gw.logs()).to.include(id);
  });

  it('keeps WEBHOOK_MAX_PENDING however many events are written at once: the burst leaves exactly that many pending, the newest', async () => {
    running = await gatewayWith(upstream, { WEBHOOK_MAX_PENDING: '5', WEBHOOK_RETRY_BASE_MS: '60000', WEBHOOK_CONCURRENCY: '1' });
    upstream.on('POST /hooks/failing', () => ({ status: 500 }));
    const id = await running.register('/hooks/failing');
    await Promise.all(Array.from({ length: 30 }, (_, n) => running!.publish(n)));
    const list = await running.deliveries(id);
    const pending = list.filter((d) => d.status === 'pending');
    expect(pending).to.have.length(5);
    expect(list.filter((d) => d.status === 'failed')).to.have.length(25);
    expect(await running.metric('gateway_webhook_deliveries_dropped_total', { reason: 'max_pending' })).to.equal(25);
  });

  it("shares the deliveries in flight between endpoints: one receiver that hangs holds at most its share, and another's events go out meanwhile", async () => {
    running = await gatewayWith(upstream, { WEBHOOK_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '4000', WEBHOOK_RETRY_BASE_MS: '60000' });
    upstream.on('POST /hooks/hanging', () => ({ status: 204, delayMs: 10_000 }));
    upstream.on('POST /hooks/quick', () => ({ status: 204 }));
    const hanging = await running.register('/hooks/hanging');
    // Every event goes to both: the hanging endpoint's deliveries come first, and there are more of them than slots.
    for (let n = 0; n < 8; n++) await running.publish(n);
    const quick = await running.register('/hooks/quick');
    const started = Date.now();
    await running.publish(100);
    await eventually(async () => upstream.calls('POST /hooks/quick').length, (n) => n >= 1, 'the quick endpoint got its event', 10_000);
    expect(Date.now() - started, 'before the hanging attempts time out (WEBHOOK_TIMEOUT_MS, 4 s)').to.be.below(3_000);
    expect(upstream.calls('POST /hooks/hanging').length, 'the hanging endpoint holds one slot of four').to.equal(1);
    expect((await running.deliveries(quick)).map((d) => d.status)).to.include('delivered');
    expect(hanging).to.be.a('string');
  });

  it('gives a delivery up after WEBHOOK_MAX_ATTEMPTS attempts, however short the delays; the endpoint stays enabled inside the window', async () => {
    running = await gatewayWith(upstream, { WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_RETRY_BASE_MS: '10', WEBHOOK_RETRY_MAX_DELAY_MS: '10', WEBHOOK_RETRY_WINDOW_MS: '600000' });
    upstream.on('POST /hooks/always-failing', () => ({ status: 503 }));
    const id = await running.register('/hooks/always-failing');
    await running.publish(1);
    const [delivery] = await eventually(() => running!.deliveries(id), (list) => list.length === 1 && list[0].status === 'failed', 'the delivery given up');
    expect(delivery.attempts).to.equal(3);
    expect(delivery.error).to.equal('answered 503; given up after 3 attempts (WEBHOOK_MAX_ATTEMPTS)');
    expect(upstream.calls('POST /hooks/always-failing')).to.have.length(3);
    expect((await documentedCall(running.gw, 'GET', `/v2/webhooks/${id}`)).body.data).to.include({ enabled: true, disabledReason: null });
  });

  it('disables an endpoint that failed every attempt for a whole WEBHOOK_RETRY_WINDOW_MS, says so on GET /v2/webhooks/{id}, drops its pending deliveries and counts it', async () => {
    running = await gatewayWith(upstream, { WEBHOOK_RETRY_BASE_MS: '30', WEBHOOK_RETRY_MAX_DELAY_MS: '60', WEBHOOK_RETRY_WINDOW_MS: '400' });
    upstream.on('POST /hooks/down', () => ({ status: 502 }));
    const id = await running.register('/hooks/down');
    await running.publish(1);
    const shown = await eventually(
      async () => (await documentedCall(running!.gw, 'GET', `/v2/webhooks/${id}`)).body.data,
      (data) => data.enabled === false,
      'the endpoint disabled',
    );
    expect(shown.disabledReason).to.match(/^every delivery failed for WEBHOOK_RETRY_WINDOW_MS \(400 ms\) since \d{4}-\d\d-\d\dT[\d:.]+Z; last: answered 502$/);
    // Counted and logged right after the write the GET saw.
    await eventually(() => running!.metric('gateway_webhook_endpoints_disabled_total', { reason: 'failing' }), (n) => n === 1, 'the disabled endpoint counted');
    await eventually(async () => running!.gw.logs(), (logs) => logs.includes('webhook endpoint disabled: every delivery failed for a whole WEBHOOK_RETRY_WINDOW_MS'), 'the log line');
    // Disabled: no new event is written for it, and nothing is left pending.
    await running.publish(2);
    expect((await running.deliveries(id)).filter((d) => d.status === 'pending')).to.deep.equal([]);
    // Enabled again by the company: events flow again.
    upstream.on('POST /hooks/down', () => ({ status: 204 }));
    expect((await documentedCall(running.gw, 'PATCH', `/v2/webhooks/${id}`, { body: { enabled: true } })).body.data).to.include({ enabled: true, disabledReason: null });
    await running.publish(3);
    await eventually(() => running!.deliveries(id), (list) => list.some((d) => d.status === 'delivered'), 'a delivery after enabling');
  });

  it('does not disable an endpoint that took a delivery during the window, though another delivery was given up', async () => {
    running = await gatewayWith(upstream, { WEBHOOK_RETRY_BASE_MS: '30', WEBHOOK_RETRY_MAX_DELAY_MS: '60', WEBHOOK_RETRY_WINDOW_MS: '400' });
    // Refuses the first event only (a receiver that chokes on one payload).
    upstream.on('POST /hooks/picky', (request) => ({ status: JSON.parse(request.body).data.id === 'con_1' ? 422 : 204 }));
    const id = await running.register('/hooks/picky');
    await running.publish(1);
    await running.publish(2);
    const list = await eventually(() => running!.deliveries(id), (all) => all.length === 2 && all.every((d) => d.status !== 'pending'), 'both finished');
    expect(list.map((d) => d.status).sort()).to.deep.equal(['delivered', 'failed']);
    expect((await documentedCall(running.gw, 'GET', `/v2/webhooks/${id}`)).body.data).to.include({ enabled: true, disabledReason: null });
  });
});

describe('webhook URLs are resolved at registration', function () {
  this.timeout(30_000);
  let gw: TestGateway | null = null;
  afterEach(async () => {
    await gw?.stop();
    gw = null;
  });
  const refused = async (url: string, method: 'POST' | 'PATCH' = 'POST', id = '') => {
    const { status, body } = await documentedCall(gw!, method, method === 'POST' ? '/v2/webhooks' : `/v2/webhooks/${id}`, { body: { url } });
    expect(status, JSON.stringify(body)).to.equal(400);
    expect(body.error.code).to.equal('VALIDATION_ERROR');
    return body.error as { message: string; details: { problems: { field: string; rule: string; message: string }[] } };
  };

  it('refuses a host that does not resolve (400, rule resolve), on create and on PATCH', async () => {
    gw = await startTestGateway({ EGRESS_ALLOW: '127.0.0.1/32' });
    const error = await refused('https://hooks.example.invalid/in');
    expect(error.details.problems[0]).to.include({ field: 'url', rule: 'resolve' });
    expect(error.message).to.include('hooks.example.invalid does not resolve');
    const created = await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: 'http://127.0.0.1:9/in' } });
    expect(created.status).to.equal(201);
    expect((await refused('https://hooks.example.invalid/in', 'PATCH', created.body.data.id)).details.problems[0]).to.include({ field: 'url', rule: 'resolve' });
  });

  it('refuses a host that resolves only to addresses the egress policy refuses (400, rule egress), and takes it once EGRESS_ALLOW admits one', async () => {
    gw = await startTestGateway();
    const error = await refused('https://localhost:9/hook');
    expect(error.details.problems[0]).to.include({ field: 'url', rule: 'egress' });
    expect(error.message).to.match(/localhost resolves only to addresses the egress policy refuses: .*127\.0\.0\.1/);
    await gw.stop();
    gw = await startTestGateway({ EGRESS_ALLOW: '127.0.0.1/32' });
    expect((await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: 'https://localhost:9/hook' } })).status).to.equal(201);
    expect((await call(gw, 'GET', '/v2/webhooks')).body.data).to.have.length(1);
  });
});
