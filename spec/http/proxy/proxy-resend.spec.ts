import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');
const METRICS_TOKEN = 'metrics-token-0123456789abcdefghijklmnop';

describe('the proxy sends again by the rules of a run: one token renewal on a 401, the API retry policy on a 429', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let files: string;

  const connect = async (appSlug: string, credentials: Record<string, unknown>) =>
    (await call(gw, 'POST', '/v2/connections', { body: { appSlug, credentials } })).body.data.id as string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    // Bodies over 64 bytes stream once: small enough to show both kinds.
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', PROXY_RETRY_BODY_BYTES: '64', METRICS_TOKEN });
    await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-secret' } });
    files = await connect('files', { apiKey: 'files-key-0123456789' });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  afterEach(() => upstream.reset());

  function tokenEndpoint(): void {
    let issued = 0;
    upstream.on('POST /oauth/token', (req) =>
      new URLSearchParams(req.body).get('refresh_token') === 'rt-1' ? { body: { access_token: `fresh-${++issued}`, expires_in: 3600 } } : { status: 400, body: { error: 'invalid_grant' } },
    );
  }

  describe('a 401', () => {
    it('renews the OAuth 2.0 token once and sends the request again, its body the same bytes; the next call uses the new token', async () => {
      tokenEndpoint();
      upstream.on('POST /crm/contacts', (req) => (req.headers.authorization === 'Bearer fresh-1' ? { status: 201, body: { created: req.body } } : { status: 401, body: { error: 'expired' } }));
      upstream.on('GET /crm/contacts', (req) => ({ body: { auth: req.headers.authorization === 'Bearer fresh-1' } }));
      const crm = await connect('crm', { accessToken: 'stale', refreshToken: 'rt-1' });
      const answer = await send(gw, 'POST', `/v2/proxy/${crm}/contacts`, { headers: { 'content-type': 'application/json' }, body: '{"name":"Ada"}' });
      expect(answer.status).to.equal(201);
      expect(answer.body).to.deep.equal({ created: '{"name":"Ada"}' });
      expect(upstream.calls('POST /crm/contacts').map((r) => [r.headers.authorization, r.body])).to.deep.equal([
        ['Bearer stale', '{"name":"Ada"}'],
        ['Bearer fresh-1', '{"name":"Ada"}'],
      ]);
      expect(upstream.calls('POST /oauth/token')).to.have.length(1);
      expect((await send(gw, 'GET', `/v2/proxy/${crm}/contacts`)).body).to.deep.equal({ auth: true });
      expect(upstream.calls('POST /oauth/token')).to.have.length(1);
    });

    it("renews only once: a second 401 is the app's answer", async () => {
      tokenEndpoint();
      upstream.on('GET /crm/contacts', () => ({ status: 401, body: { error: 'no' } }));
      const crm = await connect('crm', { accessToken: 'stale', refreshToken: 'rt-1' });
      const answer = await send(gw, 'GET', `/v2/proxy/${crm}/contacts`);
      expect(answer.status).to.equal(401);
      expect(upstream.calls('GET /crm/contacts')).to.have.length(2);
      expect(upstream.calls('POST /oauth/token')).to.have.length(1);
    });

    it('answers a refused renewal as a run does (409 AUTH_REFRESH_FAILED), and the connection needs authorizing again', async () => {
      upstream.on('POST /oauth/token', () => ({ status: 400, body: { error: 'invalid_grant' } }));
      upstream.on('GET /crm/contacts', () => ({ status: 401, body: {} }));
      const crm = await connect('crm', { accessToken: 'stale', refreshToken: 'rt-gone' });
      const answer = await send(gw, 'GET', `/v2/proxy/${crm}/contacts`);
      expect(answer.status).to.equal(409);
      expect(answer.body.error.code).to.equal('AUTH_REFRESH_FAILED');
      expect((await call(gw, 'GET', `/v2/connections/${crm}`)).body.data.status).to.equal('needs_reauthorization');
    });

    it('does not send a body streamed once again: its 401 is the answer, and nothing is renewed', async () => {
      tokenEndpoint();
      upstream.on('PUT /crm/files/big', () => ({ status: 401, body: { error: 'expired' } }));
      const crm = await connect('crm', { accessToken: 'stale', refreshToken: 'rt-1' });
      const answer = await send(gw, 'PUT', `/v2/proxy/${crm}/files/big`, { headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(1000) });
      expect(answer.status).to.equal(401);
      expect(upstream.calls('PUT /crm/files/big')).to.have.length(1);
      expect(upstream.calls('PUT /crm/files/big')[0]!.body).to.have.length(1000);
      expect(upstream.calls('POST /oauth/token')).to.have.length(0);
    });
  });

  describe('a 429', () => {
    /** The app rate-limits the first `limited` calls of a route, then answers 200. */
    function limitedFirst(route: string, limited: number, retryAfter?: string): void {
      let seen = 0;
      const headers: Record<string, string> = retryAfter ? { 'retry-after': retryAfter } : {};
      upstream.on(route, () => (++seen <= limited ? { status: 429, headers, body: { error: 'slow down' } } : { body: { ok: true, after: seen - 1 } }));
    }

    it("retries a GET by api.yaml's retry policy (Retry-After honoured) and answers the success", async () => {
      limitedFirst('GET /files/v1/list', 2, '0');
      const answer = await send(gw, 'GET', `/v2/proxy/${files}/list`);
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.equal({ ok: true, after: 2 });
      expect(upstream.calls('GET /files/v1/list')).to.have.length(3);
    });

    it('gives up after maxAttempts: the last 429 is the answer, as the app sent it', async () => {
      limitedFirst('GET /files/v1/list', 10);
      const answer = await send(gw, 'GET', `/v2/proxy/${files}/list`);
      expect(answer.status).to.equal(429);
      expect(answer.body).to.deep.equal({ error: 'slow down' });
      expect(upstream.calls('GET /files/v1/list')).to.have.length(3);
    });

    it('gives up at once when Retry-After asks for more than retryAfterCapMs', async () => {
      limitedFirst('GET /files/v1/list', 1, '3600');
      expect((await send(gw, 'GET', `/v2/proxy/${files}/list`)).status).to.equal(429);
      expect(upstream.calls('GET /files/v1/list')).to.have.length(1);
    });

    it('does not retry a POST (not idempotent) unless the caller says X-Proxy-Retry: always', async () => {
      limitedFirst('POST /files/v1/jobs', 1);
      expect((await send(gw, 'POST', `/v2/proxy/${files}/jobs`, { body: 'go' })).status).to.equal(429);
      expect(upstream.calls('POST /files/v1/jobs')).to.have.length(1);
      upstream.reset();
      limitedFirst('POST /files/v1/jobs', 1);
      const retried = await send(gw, 'POST', `/v2/proxy/${files}/jobs`, { body: 'go', headers: { 'x-proxy-retry': 'always' } });
      expect(retried.status).to.equal(200);
      expect(upstream.calls('POST /files/v1/jobs').map((r) => r.body)).to.deep.equal(['go', 'go']);
      expect(upstream.calls('POST /files/v1/jobs')[0]!.headers['x-proxy-retry']).to.equal(undefined);
    });

    it('does not retry a GET when the caller says X-Proxy-Retry: never; refuses any other value naming the header', async () => {
      limitedFirst('GET /files/v1/list', 1);
      expect((await send(gw, 'GET', `/v2/proxy/${files}/list`, { headers: { 'x-proxy-retry': 'never' } })).status).to.equal(429);
      expect(upstream.calls('GET /files/v1/list')).to.have.length(1);
      const wrong = await send(gw, 'GET', `/v2/proxy/${files}/list`, { headers: { 'x-proxy-retry': 'sometimes' } });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.error.details.problems).to.deep.equal([{ field: 'headers.x-proxy-retry', rule: 'enum', message: 'must be one of idempotent, always, never' }]);
    });

    it('does not retry a body streamed once, even with X-Proxy-Retry: always', async () => {
      limitedFirst('PUT /files/v1/blob', 1);
      const answer = await send(gw, 'PUT', `/v2/proxy/${files}/blob`, { body: 'y'.repeat(500), headers: { 'x-proxy-retry': 'always' } });
      expect(answer.status).to.equal(429);
      expect(upstream.calls('PUT /files/v1/blob')).to.have.length(1);
    });
  });

  it("tells its story in the request log line (app, (proxy), connection, upstream status, retries, outcome), never the app's path, the query or a credential", async () => {
    let seen = 0;
    upstream.on('GET /files/v1/secret-report', () => (++seen === 1 ? { status: 429, body: {} } : { body: { ok: 1 } }));
    await send(gw, 'GET', `/v2/proxy/${files}/secret-report?token=abc`);
    const line = gw
      .logs()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"') && l.includes('"upstreamStatus":200') && l.includes('"retries":1'))
      .map((l) => JSON.parse(l))
      .at(-1);
    expect(line).to.include({ method: 'GET', path: `/v2/proxy/${files}/…`, status: 200, app: 'files', action: '(proxy)', version: '1', connectionId: files, upstreamStatus: 200, retries: 1, outcome: 'success' });
    expect(JSON.stringify(line)).not.to.include('files-key-0123456789');
    expect(JSON.stringify(line)).not.to.include('token=abc');
    expect(JSON.stringify(line)).not.to.include('secret-report');
  });

  it('counts proxied calls in the metrics by app, (proxy) and status', async () => {
    upstream.on('GET /files/v1/count', () => ({ status: 204 }));
    await send(gw, 'GET', `/v2/proxy/${files}/count`);
    const text = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(text).to.match(/gateway_app_calls_total\{app="files",action="\(proxy\)",status="204"\} [1-9]/);
    expect(text).to.match(/gateway_runs_total\{app="files",action="\(proxy\)",outcome="success"\} [1-9]/);
    expect(text).to.match(/gateway_http_requests_total\{route="\/v2\/proxy\/:connectionId\/\*path",method="GET",status="204"\} [1-9]/);
  });
});
