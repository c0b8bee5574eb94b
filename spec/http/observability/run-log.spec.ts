import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { sampleValue } from '../../helpers/prometheus.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghijklmnop';
const SHOP_KEY = 'shop-api-key-SECRET-4f8a1c';
const ARGUMENT_SECRET = 'argument-SECRET-9d2e7b';
const RESPONSE_SECRET = 'response-SECRET-c3a5f1';
const CRM_CLIENT_SECRET = 'crm-client-SECRET-81b6';
const REFRESH_TOKEN = 'rt-SECRET-1';
const ACCESS_TOKEN = 'stale-access-SECRET';

describe('the request log line of a run tells its story (never a secret)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let companyId: string;
  const requestLines = (reqId: string) =>
    gw
      .logs()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request' && line.reqId === reqId);
  const runAs = (reqId: string, app: string, action: string, body: Record<string, unknown>) =>
    call(gw, 'POST', `/v2/universal/apps/${app}/actions/${action}/run`, { body, headers: { 'X-Request-Id': reqId } });
  const connect = async (appSlug: string, credentials: Record<string, string>) => (await call(gw, 'POST', '/v2/connections', { body: { appSlug, credentials } })).body.data.id as string;
  const scrape = async () => (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();

  before(async () => {
    await upstream.start();
    // An app whose base URL is a private address EGRESS_ALLOW does not admit.
    const defs = await definitionsFor(FIXTURE, upstream.url, {
      'intranet/app.yaml': 'id: intranet\nslug: intranet\nname: Intranet\npublished: 1\n',
      'intranet/versions/1/api.yaml': 'baseUrl: http://10.0.0.1\nauths:\n  - token\n',
      'intranet/versions/1/auths/token.yaml': 'type: Bearer\nid: token\ntoken: fixed\n',
      'intranet/versions/1/actions/ping.yaml': 'id: ping\nslug: ping\nname: Ping\noperation: get\nmethod: GET\npath: /ping\n',
    });
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', OUTBOUND_HEADERS_TIMEOUT_MS: '300', METRICS_TOKEN });
    companyId = (await gw.gateway.services.store.companies.find({}))[0]!.id;
    await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: CRM_CLIENT_SECRET } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());
  afterEach(function () {
    // Whatever a test ran, no secret it used reached a log line.
    const logs = gw.logs();
    for (const secret of [SHOP_KEY, ARGUMENT_SECRET, RESPONSE_SECRET, CRM_CLIENT_SECRET, REFRESH_TOKEN, ACCESS_TOKEN, METRICS_TOKEN, 'fresh-1']) {
      expect(logs, `${this.currentTest?.title}: ${secret}`).not.to.include(secret);
    }
  });

  it('a run that succeeded after rate-limit retries: company, app, action, version, connection, upstream status and time, retries, outcome', async () => {
    const connectionId = await connect('shop', { apiKey: SHOP_KEY });
    let calls = 0;
    upstream.on('GET /api/busy', () => (++calls === 1 ? { body: { error: 'slow down' } } : { delayMs: 20, body: { items: [{ id: 1, note: RESPONSE_SECRET }] } }));
    const { status, body } = await runAs('run-story-1', 'shop', 'list-busy', { connectionId });
    expect(status, JSON.stringify(body)).to.equal(200);
    const [line] = requestLines('run-story-1');
    expect(line).to.include({
      method: 'POST',
      path: '/v2/universal/apps/shop/actions/list-busy/run',
      status: 200,
      companyId,
      app: 'shop',
      action: 'list-busy',
      version: '1',
      connectionId,
      upstreamStatus: 200,
      retries: 1,
      outcome: 'success',
    });
    // Two calls: the limited one and the 20 ms one, their times added.
    expect(line!.upstreamMs).to.be.a('number').and.at.least(20);
    expect(line!.upstreamMs).to.be.at.most(line!.durationMs as number);
  });

  it('an app error (an argument and the response carrying secrets), an upstream timeout: the outcome says which, with what is known of the call', async () => {
    const connectionId = await connect('shop', { apiKey: SHOP_KEY });
    upstream.on(`GET /api/orders/${ARGUMENT_SECRET}`, () => ({ status: 500, body: { message: `failed for ${RESPONSE_SECRET}` } }));
    await runAs('run-story-2', 'shop', 'get-order', { connectionId, arguments: { orderId: ARGUMENT_SECRET } });
    expect(upstream.calls(`GET /api/orders/${ARGUMENT_SECRET}`)).to.have.length(1);
    expect(requestLines('run-story-2')[0]).to.include({ status: 200, upstreamStatus: 500, retries: 0, outcome: 'app_error' });

    upstream.on('GET /api/slow', () => ({ delayMs: 1000, body: [] }));
    await runAs('run-story-3', 'shop', 'slow', { connectionId });
    const [timedOut] = requestLines('run-story-3');
    expect(timedOut).to.include({ status: 504, app: 'shop', action: 'slow', connectionId, outcome: 'upstream_timeout' });
    expect(timedOut).not.to.have.property('upstreamStatus');
    expect(timedOut!.upstreamMs).to.be.at.least(300);
  });

  it('an OAuth 2.0 token renewed, then a grant lost: needs_reauthorization in the log, token renewals by app and outcome in the metrics', async () => {
    upstream.on('GET /crm/contacts', (req) => (req.headers.authorization === 'Bearer fresh-1' ? { body: { contacts: [{ id: 'c1' }] } } : { status: 401, body: { error: 'expired' } }));
    upstream.on('POST /oauth/token', (req) =>
      new URLSearchParams(req.body).get('refresh_token') === REFRESH_TOKEN ? { body: { access_token: 'fresh-1', expires_in: 3600 } } : { status: 400, body: { error: 'invalid_grant' } },
    );
    const renewing = await connect('crm', { accessToken: ACCESS_TOKEN, refreshToken: REFRESH_TOKEN });
    expect((await runAs('run-story-4', 'crm', 'list-contacts', { connectionId: renewing })).status).to.equal(200);
    expect(requestLines('run-story-4')[0]).to.include({ app: 'crm', action: 'list-contacts', connectionId: renewing, upstreamStatus: 200, outcome: 'success' });

    const lost = await connect('crm', { accessToken: ACCESS_TOKEN, refreshToken: 'rt-revoked' });
    const refused = await runAs('run-story-5', 'crm', 'list-contacts', { connectionId: lost });
    expect(refused.body.error.code).to.equal('AUTH_REFRESH_FAILED');
    expect(requestLines('run-story-5')[0]).to.include({ connectionId: lost, upstreamStatus: 401, outcome: 'needs_reauthorization' });
    const again = await runAs('run-story-6', 'crm', 'list-contacts', { connectionId: lost });
    expect(again.body.error.code).to.equal('CONNECTION_NEEDS_REAUTHORIZATION');
    expect(requestLines('run-story-6')[0]).to.include({ companyId, app: 'crm', connectionId: lost, outcome: 'needs_reauthorization' });

    const text = await scrape();
    expect(sampleValue(text, 'gateway_token_renewals_total', { app: 'crm', outcome: 'renewed' })).to.equal(1);
    expect(sampleValue(text, 'gateway_token_renewals_total', { app: 'crm', outcome: 'auth_refresh_failed' })).to.equal(1);
    expect(sampleValue(text, 'gateway_runs_total', { app: 'crm', action: 'list-contacts', outcome: 'needs_reauthorization' })).to.equal(2);
  });

  it('a run refused by the egress policy: egress_denied in the log and as the app call\'s kind in the metrics', async () => {
    const connectionId = await connect('intranet', {});
    const { status } = await runAs('run-story-7', 'intranet', 'ping', { connectionId });
    expect(status).to.equal(403);
    expect(requestLines('run-story-7')[0]).to.include({ status: 403, app: 'intranet', action: 'ping', connectionId, outcome: 'egress_denied' });
    const text = await scrape();
    expect(sampleValue(text, 'gateway_app_calls_total', { app: 'intranet', action: 'ping', status: 'egress_denied' })).to.equal(1);
    expect(sampleValue(text, 'gateway_runs_total', { app: 'intranet', action: 'ping', outcome: 'egress_denied' })).to.equal(1);
  });

  it('the v1 run of an installation (end-user token) carries the same story', async () => {
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'story-user' } })).body.data.userId as string;
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', endUserId, credentials: { apiKey: SHOP_KEY } } })).body.data.id as string;
    const installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'shop', connectionId }] } })).body.data.id as string;
    const token = (await call(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token as string;
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'v1' }] } } }));
    const { status } = await call({ url: gw.url, apiKey: token }, 'POST', '/v1/installation/apps/shop/published/action/list-orders/run', {
      body: { installationId },
      headers: { 'X-Request-Id': 'run-story-v1' },
    });
    expect(status).to.equal(200);
    expect(requestLines('run-story-v1')[0]).to.include({ companyId, app: 'shop', action: 'list-orders', version: '1', connectionId, upstreamStatus: 200, retries: 0, outcome: 'success' });
    expect(gw.logs()).not.to.include(token);
  });

  it('the request line holds exactly its own fields (ids, counts, the path), so it is written without redaction', async () => {
    const connectionId = await connect('shop', { apiKey: SHOP_KEY });
    upstream.on('GET /api/orders/o-fields', () => ({ body: { id: 'o-fields' } }));
    expect((await runAs('run-fields', 'shop', 'get-order', { connectionId, arguments: { orderId: 'o-fields' } })).status).to.equal(200);
    const [line] = requestLines('run-fields');
    expect(Object.keys(line!).sort()).to.deep.equal(
      ['action', 'app', 'companyId', 'connectionId', 'durationMs', 'level', 'method', 'msg', 'outcome', 'path', 'reqId', 'retries', 'status', 'time', 'upstreamMs', 'upstreamStatus', 'version'].sort(),
    );
    await call(gw, 'GET', '/v2/connections?limit=1', { headers: { 'X-Request-Id': 'not-a-run-fields' } });
    expect(Object.keys(requestLines('not-a-run-fields')[0]!).sort()).to.deep.equal(['durationMs', 'level', 'method', 'msg', 'path', 'reqId', 'status', 'time']);
  });

  it('a request that is not a run carries no run fields', async () => {
    await call(gw, 'GET', '/v2/connections', { headers: { 'X-Request-Id': 'not-a-run' } });
    const [line] = requestLines('not-a-run');
    expect(line).to.include({ path: '/v2/connections', status: 200 });
    for (const field of ['companyId', 'app', 'action', 'connectionId', 'outcome', 'retries']) expect(line).not.to.have.property(field);
  });
});
