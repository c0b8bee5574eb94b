import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runLane } from '../../../engine/http/runs/run-lane.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { sampleValue } from '../../helpers/prometheus.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghijklmnop';
const RUN = '/v2/universal/apps/shop/actions/list-orders/run';
/** The same run through Koa: a query string (version=published, the default) is one thing the lane leaves to it. */
const RUN_THROUGH_KOA = `${RUN}?version=published`;

/** What two answers must share: status, body, and every header but the ones that differ by nature (date, request id). */
function comparable(answer: { status: number; headers: Headers; body: unknown }) {
  const headers = Object.fromEntries([...answer.headers].filter(([name]) => !['date', 'x-request-id'].includes(name)));
  return { status: answer.status, headers, body: answer.body };
}

describe('the run lane: the universal run served off Koa (run-lane.ts)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let connectionId: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', METRICS_TOKEN });
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'shop-key-abc' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  beforeEach(() => upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'o1' }, { id: 'o2' }], next: null } } })));
  afterEach(() => upstream.reset());

  describe('which requests it takes', () => {
    let server: http.Server;
    let url: string;
    const toKoa: string[] = [];

    before(async () => {
      // The lane in front of a stand-in for Koa that says it was asked: what reaches it, the lane left.
      server = http.createServer(
        runLane(gw.gateway.services, (req, res) => {
          toKoa.push(`${req.method} ${req.url}`);
          res.writeHead(418, { 'Content-Type': 'text/plain' }).end('koa');
        }),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // The key is admitted once through the gateway (its cache of recently found keys is what the lane reads).
      expect((await call(gw, 'POST', RUN, { body: { connectionId } })).status).to.equal(200);
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    beforeEach(() => void (toKoa.length = 0));

    const send = (target: string, init: { body?: string; headers?: Record<string, string>; method?: string } = {}) =>
      fetch(url + target, {
        method: init.method ?? 'POST',
        headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json', ...init.headers },
        ...(init.body === undefined && (init.method ?? 'POST') === 'GET' ? {} : { body: init.body ?? JSON.stringify({ connectionId }) }),
      });

    it('serves a plain run itself: the envelope, 200, nothing reaches Koa', async () => {
      const answer = await send(RUN);
      expect(answer.status).to.equal(200);
      const body = (await answer.json()) as { success: boolean; data: unknown };
      expect(body).to.include({ success: true });
      expect(body.data).to.deep.equal([{ id: 'o1' }, { id: 'o2' }]);
      expect(answer.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(answer.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      expect(toKoa).to.deep.equal([]);
    });

    it('serves a failure of the run itself too, in the error shape (an unknown action is 404)', async () => {
      const answer = await send('/v2/universal/apps/shop/actions/no-such-action/run');
      expect(answer.status).to.equal(404);
      expect(((await answer.json()) as { error: { code: string } }).error.code).to.equal('ACTION_NOT_FOUND');
      expect(toKoa).to.deep.equal([]);
    });

    const leftToKoa: [string, string, Parameters<typeof send>[1]][] = [
      ['a query string', `${RUN}?version=published`, {}],
      ['an escape in the path', '/v2/universal/apps/sh%6Fp/actions/list-orders/run', {}],
      ['a trailing slash', `${RUN}/`, {}],
      ['another method', RUN, { method: 'PUT' }],
      ['an Origin (a browser: CORS)', RUN, { headers: { origin: 'https://app.example' } }],
      ['another media type', RUN, { headers: { 'content-type': 'text/plain' } }],
      ['a Content-Type with parameters beyond charset=utf-8', RUN, { headers: { 'content-type': 'application/json; charset=latin1' } }],
      ['a Content-Encoding', RUN, { headers: { 'content-encoding': 'gzip' } }],
      ['an empty body', RUN, { body: '' }],
      ['a key the gateway has not admitted recently', RUN, { headers: { authorization: 'Bearer igw_not_a_key_0123456789abcdef0123456789' } }],
      ['no Authorization', RUN, { headers: { authorization: '' } }],
    ];
    for (const [what, target, init] of leftToKoa) {
      it(`leaves a run with ${what} to Koa`, async () => {
        const answer = await send(target, init);
        expect(answer.status).to.equal(418);
        expect(toKoa).to.have.length(1);
      });
    }

    it('leaves a body over the 1 MiB limit to Koa, whose body limit answers it (413)', async () => {
      const answer = await send(RUN, { body: JSON.stringify({ connectionId, arguments: { pad: 'x'.repeat(1024 * 1024) } }) });
      expect(answer.status).to.equal(418);
    });
  });

  describe('answers as Koa answers the same run', () => {
    const cases: [string, string | Record<string, unknown>][] = [
      ['a run', {}],
      ['arguments that are not an object (400 VALIDATION_ERROR)', { arguments: 5 }],
      ['an unknown connection (404)', { connectionId: 'con_doesnotexist' }],
      ['malformed JSON (400 INVALID_JSON)', '{"connectionId": '],
      ['JSON that is not an object (400)', '"text"'],
      ['a __proto__ member (400)', '{"__proto__": {"x": 1}}'],
      ['JSON nested too deep (400)', `${'['.repeat(200)}${']'.repeat(200)}`],
      ['an argument the action does not have (400)', { arguments: { nope: 1 } }],
    ];
    for (const [what, given] of cases) {
      it(`for ${what}`, async () => {
        const body = typeof given === 'string' ? given : { connectionId, ...given };
        // The first call admits the key (through Koa); the lane serves every later one.
        await call(gw, 'POST', RUN, { body: { connectionId } });
        const lane = await call(gw, 'POST', RUN, { body });
        const koa = await call(gw, 'POST', RUN_THROUGH_KOA, { body });
        expect(comparable(lane)).to.deep.equal(comparable(koa));
      });
    }

    it("for an unknown app, naming the app, in the error shape", async () => {
      const target = '/v2/universal/apps/nosuchapp/actions/list-orders/run';
      const lane = await call(gw, 'POST', target, { body: { connectionId } });
      const koa = await call(gw, 'POST', `${target}?version=published`, { body: { connectionId } });
      expect(lane.status).to.equal(404);
      expect(lane.body.error.message).to.include('nosuchapp');
      expect(comparable(lane)).to.deep.equal(comparable(koa));
    });
  });

  it("keeps the caller's X-Request-Id, logs the run's line and counts it under the route's template", async () => {
    await call(gw, 'POST', RUN, { body: { connectionId } });
    const before = sampleValue(await scrape(), 'gateway_http_requests_total', { route: '/v2/universal/apps/:appSlug/actions/:actionSlug/run', method: 'POST', status: '200' }) ?? 0;
    const answer = await call(gw, 'POST', RUN, { body: { connectionId }, headers: { 'X-Request-Id': 'lane-check-1' } });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('x-request-id')).to.equal('lane-check-1');
    const line = gw
      .logs()
      .split('\n')
      .filter((text) => text.includes('"reqId":"lane-check-1"'))
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.msg === 'request');
    expect(line).to.include({ method: 'POST', path: RUN, status: 200, app: 'shop', action: 'list-orders', connectionId, upstreamStatus: 200, outcome: 'success', retries: 0 });
    const after = sampleValue(await scrape(), 'gateway_http_requests_total', { route: '/v2/universal/apps/:appSlug/actions/:actionSlug/run', method: 'POST', status: '200' });
    expect(after).to.equal(before + 1);
  });

  it('stops the run when its caller goes away, and logs the request as 499', async () => {
    upstream.reset();
    upstream.on('GET /api/orders', () => ({ delayMs: 1_000, body: { result: { orders: [], next: null } } }));
    await call(gw, 'POST', RUN, { body: { connectionId } }).catch(() => undefined);
    const gone = new AbortController();
    const sent = fetch(gw.url + RUN, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json', 'x-request-id': 'lane-gone-1' },
      body: JSON.stringify({ connectionId }),
      signal: gone.signal,
    });
    setTimeout(() => gone.abort(), 100);
    await sent.then(
      () => expect.fail('the caller went away before the answer'),
      () => undefined,
    );
    const deadline = Date.now() + 5_000;
    let line: Record<string, unknown> | undefined;
    while (!line && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      line = gw
        .logs()
        .split('\n')
        .filter((text) => text.includes('"reqId":"lane-gone-1"'))
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => entry.msg === 'request');
    }
    expect(line).to.include({ status: 499, app: 'shop', action: 'list-orders', outcome: 'cancelled' });
  });

  const scrape = async (): Promise<string> => {
    const response = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).to.equal(200);
    return await response.text();
  };
});
