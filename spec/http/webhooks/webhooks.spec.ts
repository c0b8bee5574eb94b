import { expect } from 'chai';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { sampleValue } from '../../helpers/prometheus.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { definitionsFor, Upstream, type ReceivedRequest } from '../../helpers/upstream.ts';
import { eventually } from '../../support/eventually.ts';
import { publishEvent } from '../../../engine/tenancy/webhooks/publish.ts';
import { startWebhookWorker } from '../../../engine/tenancy/webhooks/worker.ts';
import { updateConnection } from '../../../engine/core/connections/update-connection.ts';
import type { Store } from '../../../engine/platform/store/index.ts';
import { storedFilesInclude } from '../../helpers/stored-files.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
/** The verification snippet customers copy (docs), loaded as they would run it. */
const SNIPPET = pathToFileURL(path.join(ROOT, 'examples/webhooks/verify-signature.mjs')).href;

const METRICS_TOKEN = 'webhooks-metrics-token-0123456789abcdefgh';
const metric = async (url: string, outcome: string) =>
  sampleValue(await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text(), 'gateway_webhook_attempts_total', { outcome }) ?? 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('connection webhooks (/v2/webhooks)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let verifyWebhook: (rawBody: string, header: unknown, secret: string, toleranceSeconds?: number, nowMs?: number) => any;
  const registered: string[] = [];

  before(async () => {
    ({ verifyWebhook } = await import(SNIPPET));
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({
      DEFINITIONS_DIR: defs.dir,
      EGRESS_ALLOW: '127.0.0.1/32',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_MAX_DELAY_MS: '200',
      WEBHOOK_RETRY_WINDOW_MS: '1500',
      WEBHOOK_TIMEOUT_MS: '400',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_CONCURRENCY: '2',
      WEBHOOK_DELIVERIES_KEPT: '5',
      OUTBOUND_MAX_RESPONSE_BYTES: '65536',
      METRICS_TOKEN,
    });
    await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-secret' } });
    // The OAuth flow takes a returnUrl on one of the company's allowed origins only.
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://app.example.com'], enabledApps: [] } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(async () => {
    // Each test's endpoints go, so the next test's events reach only its own.
    for (const id of registered.splice(0)) await call(gw, 'DELETE', `/v2/webhooks/${id}`);
    upstream.reset();
  });

  async function register(route: string, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
    const { status, body: answer } = await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}${route}`, ...body } });
    expect(status, JSON.stringify(answer)).to.equal(201);
    registered.push(answer.data.id);
    return { id: answer.data.id, secret: answer.data.secret };
  }
  const connect = async (credentials: Record<string, string> = { accessToken: 'a', refreshToken: 'r' }) => {
    const { status, body } = await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'crm', credentials } });
    expect(status).to.equal(201);
    return body.data as { id: string };
  };
  const deliveries = async (id: string) => (await documentedCall(gw, 'GET', `/v2/webhooks/${id}/deliveries`)).body.data as any[];
  const settled = (id: string, count = 1) =>
    eventually(() => deliveries(id), (list) => list.length >= count && list.every((d) => d.status !== 'pending'), `deliveries of ${id} finished`);

  it('registers an endpoint, answers its secret once, and keeps it encrypted and out of every other answer', async () => {
    const created = await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}/hooks/a`, events: ['connection.created'], description: 'CRM sync' } });
    expect(created.status).to.equal(201);
    registered.push(created.body.data.id);
    const { id, secret } = created.body.data;
    expect(id).to.match(/^whk_[0-9a-f]{24}$/);
    expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get('cache-control'), 'no cache keeps the secret').to.equal('no-store');
    expect(created.body.data).to.include({ url: `${upstream.url}/hooks/a`, description: 'CRM sync', enabled: true, disabledReason: null });
    expect(created.body.data.events).to.deep.equal(['connection.created']);

    const one = await documentedCall(gw, 'GET', `/v2/webhooks/${id}`);
    expect(one.status).to.equal(200);
    expect(one.body.data).not.to.have.property('secret');
    const list = await documentedCall(gw, 'GET', '/v2/webhooks');
    expect(list.body.data.map((w: { id: string }) => w.id)).to.include(id);
    expect(JSON.stringify(list.body) + JSON.stringify(one.body)).not.to.include(secret);
    expect(await storedFilesInclude(gw.dataDir, id), 'the record is in the files read').to.equal(true);
    expect(await storedFilesInclude(gw.dataDir, secret)).to.equal(false);

    const patched = await documentedCall(gw, 'PATCH', `/v2/webhooks/${id}`, { body: { events: [], enabled: false, description: null } });
    expect(patched.status).to.equal(200);
    expect(patched.body.data).to.include({ enabled: false, description: null });
    expect(patched.body.data.events).to.deep.equal([]);

    const rotated = await documentedCall(gw, 'POST', `/v2/webhooks/${id}/rotate-secret`);
    expect(rotated.status).to.equal(200);
    expect(rotated.body.data.secret).to.match(/^whsec_/).and.not.equal(secret);
    expect(rotated.headers.get('cache-control')).to.equal('no-store');

    const gone = await documentedCall(gw, 'DELETE', `/v2/webhooks/${id}`);
    expect(gone.body).to.deep.equal({ success: true, data: { id, deleted: true } });
    expect((await documentedCall(gw, 'GET', `/v2/webhooks/${id}`)).status).to.equal(404);
    expect(gw.logs()).not.to.include(secret);
  });

  it('deletes an endpoint once however many DELETEs come at once: one 200, the rest 404', async () => {
    const created = await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}/hooks/twice` } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => documentedCall(gw, 'DELETE', `/v2/webhooks/${created.body.data.id}`)));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, ...Array(19).fill(404)]);
  });

  it('refuses at registration: http to a host EGRESS_ALLOW does not admit, an IP address the egress policy refuses, other schemes, unknown events', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const { status, body: answer } = await documentedCall(gw, 'POST', '/v2/webhooks', { body });
      expect(status, JSON.stringify(answer)).to.equal(400);
      expect(answer.error.code).to.equal('VALIDATION_ERROR');
      return answer.error as { message: string; details: { problems: { field: string; rule: string }[] } };
    };
    const http = await refused({ url: 'http://hooks.example.com/in' });
    expect(http.details.problems[0]).to.include({ field: 'url', rule: 'https' });
    expect(http.message).to.include('EGRESS_ALLOW');
    const privateAddress = await refused({ url: 'https://10.1.2.3/in' });
    expect(privateAddress.details.problems[0]).to.include({ field: 'url', rule: 'egress' });
    expect(privateAddress.message).to.include('10.1.2.3');
    const metadata = await refused({ url: 'https://169.254.169.254/latest' });
    expect(metadata.details.problems[0]).to.include({ field: 'url', rule: 'egress' });
    expect((await refused({ url: 'ftp://hooks.example.com/' })).details.problems[0]).to.include({ field: 'url', rule: 'https' });
    expect((await refused({ url: 'https://user:pw@hooks.example.com/' })).details.problems[0]).to.include({ field: 'url', rule: 'credentials' });
    // Port 0 reaches no receiver: accepted, it was retried for a whole day with no chance of an answer.
    const portZero = await refused({ url: 'https://hooks.example.com:0/in' });
    expect(portZero.details.problems[0]).to.include({ field: 'url', rule: 'port' });
    expect(portZero.message).to.equal('url: must not name port 0, which no receiver listens on');
    const event = await refused({ url: 'https://hooks.example.com/', events: ['connection.exploded'] });
    expect(event.details.problems[0]!.field).to.match(/events/);
  });

  it('signs each delivery so the documented snippet verifies it: the payload, its event id header, and no secret', async () => {
    const { id, secret } = await register('/hooks/signed', { events: ['connection.created'] });
    const verified: any[] = [];
    upstream.on('POST /hooks/signed', (req) => {
      verified.push(verifyWebhook(req.body, req.headers['gateway-signature'], secret));
      return { status: 204 };
    });
    const connection = await connect({ accessToken: 'token-that-must-not-leak', refreshToken: 'r' });
    await settled(id);
    const [request] = upstream.calls('POST /hooks/signed') as [ReceivedRequest];
    expect(request.headers['content-type']).to.equal('application/json');
    expect(request.headers['gateway-signature']).to.match(/^t=\d{10},v1=[0-9a-f]{64}$/);
    const [event] = verified;
    expect(event).to.include({ type: 'connection.created', companyId: (gw.gateway.bootstrap as { companyId: string }).companyId });
    expect(event.id).to.match(/^evt_/).and.equal(request.headers['gateway-event-id']);
    expect(request.headers['gateway-event-type']).to.equal('connection.created');
    expect(event.data).to.include({ id: connection.id, appSlug: 'crm', status: 'active' });
    expect(new Date(event.createdOn).toISOString()).to.equal(event.createdOn);
    expect(request.body).not.to.include('token-that-must-not-leak');
    expect(request.body).not.to.include(secret);

    // The snippet refuses a changed body, another secret, and a stale timestamp.
    expect(() => verifyWebhook(request.body.replace('crm', 'crn'), request.headers['gateway-signature'], secret)).to.throw('does not match');
    expect(() => verifyWebhook(request.body, request.headers['gateway-signature'], 'whsec_other')).to.throw('does not match');
    expect(() => verifyWebhook(request.body, request.headers['gateway-signature'], secret, 300, Date.now() + 301_000)).to.throw('tolerance');
    expect(() => verifyWebhook(request.body, 'v1=abc', secret)).to.throw('malformed');

    const [delivery] = await deliveries(id);
    expect(delivery).to.include({ eventId: event.id, eventType: 'connection.created', status: 'delivered', attempts: 1, responseStatus: 204, error: null, nextAttemptAt: null });
    expect(delivery.durationMs).to.be.a('number');
  });

  it('sends connection.reauthorized when the connection was marked needs_reauthorization after the PATCH read it', async () => {
    const { id } = await register('/hooks/race');
    const events: any[] = [];
    upstream.on('POST /hooks/race', (req) => {
      events.push(JSON.parse(req.body));
      return { status: 200 };
    });
    const connection = await connect();
    const services = gw.gateway.services;
    const real = services.store;
    // A renewal that failed elsewhere marks the connection just after this PATCH read it as active.
    let marked = false;
    const connections = Object.create(real.connections, {
      findOne: {
        value: async (filter: Record<string, unknown>) => {
          const found = await real.connections.findOne(filter);
          if (!marked && found?.id === connection.id) {
            marked = true;
            await real.connections.updateOne({ id: connection.id }, { $set: { status: 'needs_reauthorization' } });
          }
          return found;
        },
      },
    });
    const store = new Proxy(real, { get: (target, key) => (key === 'connections' ? connections : Reflect.get(target, key, target)) }) as Store;
    const { companyId } = (await real.connections.findOne({ id: connection.id }))!;
    const updated = await updateConnection({ ...services, store }, companyId, connection.id, { credentials: { accessToken: 'new', refreshToken: 'rt-2' } });
    expect(marked).to.equal(true);
    expect(updated.status).to.equal('active');
    await settled(id, 2);
    expect(events.map((e) => e.type)).to.have.members(['connection.created', 'connection.reauthorized']);
  });

  it('sends an event for each change of a connection: created, needs re-authorization, re-authorized, deleted', async () => {
    const { id, secret } = await register('/hooks/all');
    const events: any[] = [];
    upstream.on('POST /hooks/all', (req) => {
      events.push(verifyWebhook(req.body, req.headers['gateway-signature'], secret));
      return { status: 200 };
    });
    upstream.on('GET /crm/contacts', () => ({ status: 401, body: { error: 'token expired' } }));
    upstream.on('POST /oauth/token', () => ({ status: 400, body: { error: 'invalid_grant' } }));
    const connection = await connect({ accessToken: 'stale', refreshToken: 'rt-revoked' });
    const run = await call(gw, 'POST', '/v2/universal/apps/crm/actions/list-contacts/run', { body: { connectionId: connection.id } });
    expect(run.body.error.code).to.equal('AUTH_REFRESH_FAILED');
    const patched = await call(gw, 'PATCH', `/v2/connections/${connection.id}`, { body: { credentials: { accessToken: 'new', refreshToken: 'rt-2' } } });
    expect(patched.body.data.status).to.equal('active');
    // A PATCH of an active connection is no re-authorization.
    await call(gw, 'PATCH', `/v2/connections/${connection.id}`, { body: { name: 'renamed' } });
    expect((await call(gw, 'DELETE', `/v2/connections/${connection.id}`)).status).to.equal(200);
    await settled(id, 4);
    expect(new Set(events.map((e) => e.type))).to.deep.equal(new Set(['connection.created', 'connection.needs_reauthorization', 'connection.reauthorized', 'connection.deleted']));
    expect(events).to.have.length(4);
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    expect(byType['connection.needs_reauthorization'].data).to.include({ id: connection.id, status: 'needs_reauthorization' });
    expect(byType['connection.reauthorized'].data).to.include({ id: connection.id, status: 'active' });
    expect(byType['connection.deleted'].data).to.include({ id: connection.id });
    expect(new Set(events.map((e) => e.id)).size).to.equal(4);
  });

  it('sends connection.created for a connection the OAuth callback stored', async () => {
    const { id, secret } = await register('/hooks/oauth', { events: ['connection.created'] });
    upstream.on('POST /hooks/oauth', () => ({ status: 200 }));
    upstream.on('POST /oauth/token', () => ({ body: { access_token: 'oauth-access-token', refresh_token: 'oauth-refresh', expires_in: 3600 } }));
    const started = await call(gw, 'GET', `/v2/connect/crm/authorize?returnUrl=${encodeURIComponent('https://app.example.com/done')}`);
    expect(started.status).to.equal(200);
    const state = new URL(started.body.data.authorizationUrl).searchParams.get('state')!;
    const back = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ state, code: 'the-code' })}`, { redirect: 'manual' });
    expect(back.status).to.equal(302);
    const connectionId = new URL(back.headers.get('location')!).searchParams.get('connectionId');
    expect(connectionId).to.match(/^con_/);
    await settled(id);
    const [request] = upstream.calls('POST /hooks/oauth');
    const event = verifyWebhook(request!.body, request!.headers['gateway-signature'], secret);
    expect(event.type).to.equal('connection.created');
    expect(event.data).to.include({ id: connectionId, authType: 'OAuth2AuthorizationCode', status: 'active' });
    expect(request!.body).not.to.include('oauth-access-token');
  });

  it('sends end_user.deleted when DELETE /v2/end-users/{id} deletes one, to the endpoints that take it', async () => {
    const { id, secret } = await register('/hooks/users', { events: ['end_user.deleted'] });
    const other = await register('/hooks/connections-only', { events: ['connection.deleted'] });
    upstream.on('POST /hooks/users', () => ({ status: 200 }));
    upstream.on('POST /hooks/connections-only', () => ({ status: 200 }));
    const companyId = (gw.gateway.bootstrap as { companyId: string }).companyId;
    const created = await call(gw, 'POST', '/v1/users', { body: { externalId: 'leaving-user', name: 'Leaving' } });
    const endUserId = created.body.data.userId as string;
    expect((await call(gw, 'DELETE', `/v2/end-users/${endUserId}`)).status).to.equal(200);
    await settled(id);
    const [request] = upstream.calls('POST /hooks/users');
    const event = verifyWebhook(request!.body, request!.headers['gateway-signature'], secret);
    expect(event).to.deep.include({ type: 'end_user.deleted', companyId, data: { endUserId, connectionsDeleted: 0, installationsDeleted: 0 } });
    expect(request!.body).not.to.include('Leaving');
    expect(await deliveries(other.id)).to.deep.equal([]);
  });

  it('retries non-2xx answers with backoff, the same event each time, then records the success', async () => {
    const { id, secret } = await register('/hooks/flaky', { events: ['connection.created'] });
    let answered = 0;
    upstream.on('POST /hooks/flaky', () => ({ status: ++answered <= 2 ? 500 : 200 }));
    const before = { retrying: await metric(gw.url, 'retrying'), delivered: await metric(gw.url, 'delivered') };
    await connect();
    const [delivery] = await settled(id);
    expect(delivery).to.include({ status: 'delivered', attempts: 3, responseStatus: 200, error: null });
    const calls = upstream.calls('POST /hooks/flaky');
    expect(calls).to.have.length(3);
    expect(new Set(calls.map((c) => c.headers['gateway-event-id'])).size).to.equal(1);
    for (const c of calls) verifyWebhook(c.body, c.headers['gateway-signature'], secret);
    expect(await metric(gw.url, 'retrying')).to.equal(before.retrying + 2);
    expect(await metric(gw.url, 'delivered')).to.equal(before.delivered + 1);
  });

  it('does not follow a redirect: a 3xx is a failed attempt, and nothing is sent where it points', async () => {
    const { id } = await register('/hooks/moved', { events: ['connection.created'] });
    upstream.on('POST /hooks/moved', () => ({ status: 302, headers: { location: '/hooks/elsewhere' } }));
    upstream.on('GET /hooks/elsewhere', () => ({ status: 200 }));
    upstream.on('POST /hooks/elsewhere', () => ({ status: 200 }));
    await connect();
    const [delivery] = await eventually(() => deliveries(id), (list) => list.length === 1 && list[0].attempts >= 1, 'the delivery tried');
    expect(delivery).to.include({ responseStatus: 302 });
    // The developer reads where it pointed and what to do (a receiver moved to https, a trailing slash added...).
    expect(delivery.error).to.equal(
      `answered 302, a redirect to ${upstream.url}/hooks/elsewhere: redirects are not followed; if your receiver moved, PATCH /v2/webhooks/${id} with the url it points to`,
    );
    expect(upstream.received.filter((r) => r.path === '/hooks/elsewhere')).to.deep.equal([]);
  });

  it('names a redirect without a Location, and cuts a huge one, in the delivery error', async () => {
    const bare = await register('/hooks/bare', { events: ['connection.created'] });
    upstream.on('POST /hooks/bare', () => ({ status: 301 }));
    const huge = await register('/hooks/huge-location', { events: ['connection.created'] });
    upstream.on('POST /hooks/huge-location', () => ({ status: 308, headers: { location: `https://elsewhere.example/${'x'.repeat(5000)}` } }));
    await connect();
    const [first] = await eventually(() => deliveries(bare.id), (list) => list.length === 1 && list[0].attempts >= 1, 'the delivery tried');
    expect(first.error).to.equal(`answered 301, a redirect without a Location: redirects are not followed; if your receiver moved, PATCH /v2/webhooks/${bare.id} with its new url`);
    const [second] = await eventually(() => deliveries(huge.id), (list) => list.length === 1 && list[0].attempts >= 1, 'the delivery tried');
    expect(second.error).to.match(/^answered 308, a redirect to https:\/\/elsewhere\.example\/x+…: redirects are not followed/);
    expect(second.error.length).to.be.below(400);
  });

  it('gives up after WEBHOOK_RETRY_WINDOW_MS, recording the last answer, and logs it', async () => {
    const { id } = await register('/hooks/down', { events: ['connection.created'] });
    upstream.on('POST /hooks/down', () => ({ status: 503, body: { error: 'down for maintenance' } }));
    await connect();
    const [delivery] = await settled(id);
    expect(delivery.status).to.equal('failed');
    expect(delivery.responseStatus).to.equal(503);
    expect(delivery.error).to.match(/^answered 503; given up after \d+ attempts \(WEBHOOK_RETRY_WINDOW_MS\)$/);
    expect(delivery.attempts).to.be.at.least(3).and.equal(upstream.calls('POST /hooks/down').length);
    expect(delivery.nextAttemptAt).to.equal(null);
    expect(JSON.stringify(delivery)).not.to.include('maintenance');
    expect(gw.logs()).to.include('webhook delivery given up');
  });

  it('bounds a slow or huge-answering endpoint: the attempt times out (WEBHOOK_TIMEOUT_MS) or is cut (OUTBOUND_MAX_RESPONSE_BYTES)', async () => {
    const slow = await register('/hooks/slow', { events: ['connection.created'] });
    const huge = await register('/hooks/huge', { events: ['connection.created'] });
    upstream.on('POST /hooks/slow', () => ({ status: 200, delayMs: 3_000 }));
    upstream.on('POST /hooks/huge', () => ({ status: 200, body: 'x'.repeat(1_000_000), headers: { 'content-type': 'text/plain' } }));
    const started = Date.now();
    await connect();
    const [timedOut] = await eventually(() => deliveries(slow.id), (list) => list.length === 1 && list[0].attempts >= 1, 'the slow delivery tried');
    expect(timedOut.error).to.equal('no answer within 400 ms (WEBHOOK_TIMEOUT_MS)');
    expect(timedOut.responseStatus).to.equal(null);
    expect(timedOut.durationMs).to.be.within(350, 1_500);
    const [cut] = await eventually(() => deliveries(huge.id), (list) => list.length === 1 && list[0].attempts >= 1, 'the huge delivery tried');
    expect(cut.error).to.match(/^RESPONSE_TOO_LARGE: .*65536 bytes \(OUTBOUND_MAX_RESPONSE_BYTES\)/);
    // Neither held the gateway: both were over well before the slow receiver would have answered.
    expect(Date.now() - started).to.be.below(3_000);
  });

  it('keeps at most WEBHOOK_CONCURRENCY attempts in flight, and one endpoint to its share of them (a quarter, at least one)', async () => {
    const routes = ['/hooks/busy-1', '/hooks/busy-2', '/hooks/busy-3'];
    const ids: string[] = [];
    for (const route of routes) ids.push((await register(route, { events: ['connection.created'] })).id);
    let active = 0;
    let most = 0;
    const activeAt = new Map<string, number>();
    let mostAtOne = 0;
    for (const route of routes) {
      upstream.on(`POST ${route}`, async () => {
        most = Math.max(most, ++active);
        activeAt.set(route, (activeAt.get(route) ?? 0) + 1);
        mostAtOne = Math.max(mostAtOne, activeAt.get(route)!);
        await sleep(150);
        active--;
        activeAt.set(route, activeAt.get(route)! - 1);
        return { status: 200 };
      });
    }
    for (let i = 0; i < 4; i++) await connect();
    for (const id of ids) await settled(id, 4);
    await eventually(async () => routes.reduce((n, route) => n + upstream.calls(`POST ${route}`).length, 0), (n) => n === 12, 'twelve sent');
    expect(most, 'WEBHOOK_CONCURRENCY (2)').to.equal(2);
    expect(mostAtOne, "one endpoint's share of 2").to.equal(1);
  });

  it('disables an endpoint that answers 410 Gone and writes no more events for it until enabled again', async () => {
    const { id } = await register('/hooks/gone', { events: ['connection.created'] });
    upstream.on('POST /hooks/gone', () => ({ status: 410 }));
    // A slow store write of the endpoint: the delivery must not read as finished ("the endpoint was
    // disabled") while its endpoint still reads as enabled.
    const endpoints = gw.gateway.services.store.webhookEndpoints;
    const update = endpoints.updateOne;
    Object.assign(endpoints, { updateOne: async (...args: Parameters<typeof update>) => (await sleep(300), update.apply(endpoints, args)) });
    await connect();
    const [delivery] = await settled(id).finally(() => Object.assign(endpoints, { updateOne: update }));
    expect(delivery).to.include({ status: 'failed', attempts: 1, responseStatus: 410, error: 'answered 410 Gone: the endpoint was disabled' });
    const endpoint = (await documentedCall(gw, 'GET', `/v2/webhooks/${id}`)).body.data;
    expect(endpoint.enabled).to.equal(false);
    expect(endpoint.disabledReason).to.match(/^answered 410 Gone to event evt_/);
    await connect();
    await sleep(200);
    expect(await deliveries(id)).to.have.length(1);
    const enabled = await documentedCall(gw, 'PATCH', `/v2/webhooks/${id}`, { body: { enabled: true } });
    expect(enabled.body.data).to.include({ enabled: true, disabledReason: null });
    await connect();
    await eventually(() => deliveries(id), (list) => list.length === 2, 'a new event written once enabled');
  });

  it('sends each attempt once when two workers share the store (the claim is a compare-and-set, as between gateways on one MongoDB)', async () => {
    const { id } = await register('/hooks/shared', { events: ['end_user.deleted'] });
    upstream.on('POST /hooks/shared', () => ({ status: 200, delayMs: 20 }));
    const second = startWebhookWorker(gw.gateway.services, { ...gw.gateway.services.config.webhooks, pollIntervalMs: 10, deliveriesKept: 100 }, gw.gateway.services.http);
    try {
      const companyId = (gw.gateway.bootstrap as { companyId: string }).companyId;
      const published: string[] = [];
      for (let i = 0; i < 12; i++) published.push(await publishEvent(gw.gateway.services, companyId, { type: 'end_user.deleted', data: { endUserId: `eu_${i}` } }));
      await eventually(async () => upstream.calls('POST /hooks/shared').length, (n) => n >= 12, 'twelve sent');
      await sleep(300);
      const sent = upstream.calls('POST /hooks/shared').map((c) => String(c.headers['gateway-event-id']));
      expect(sent.slice().sort()).to.deep.equal(published.slice().sort());
      // What is kept (the other worker keeps fewer) was each delivered at the first attempt.
      const stored = await gw.gateway.services.store.webhookDeliveries.find({ endpointId: id });
      expect(stored.length).to.be.at.least(5);
      expect(new Set(stored.map((d) => `${d.status} ${d.attempts}`))).to.deep.equal(new Set(['delivered 1']));
    } finally {
      await second.stop();
    }
  });

  it('keeps the newest WEBHOOK_DELIVERIES_KEPT finished deliveries per endpoint', async () => {
    const { id } = await register('/hooks/many', { events: ['connection.created'] });
    upstream.on('POST /hooks/many', () => ({ status: 200 }));
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await connect()).id);
    await eventually(() => deliveries(id), (list) => list.length === 5 && list.every((d) => d.status === 'delivered'), 'five kept');
    await eventually(async () => upstream.calls('POST /hooks/many').length, (n) => n === 7, 'seven sent');
    // The listing shows at most WEBHOOK_DELIVERIES_KEPT; the store keeps no more either, once the last prune ran.
    const kept = await eventually(
      async () => (await gw.gateway.services.store.webhookDeliveries.find({ endpointId: id })).map((d) => JSON.parse(d.payload).data.id as string),
      (ids) => ids.length === 5,
      'five stored',
    );
    expect(new Set(kept)).to.deep.equal(new Set(created.slice(2)));
  });

  it("is tenant-scoped: another company's endpoint is 404 everywhere, and it never receives this company's events", async () => {
    const other = await otherTenant(gw.gateway.services.store);
    const as = { url: gw.url, apiKey: other.apiKey };
    const theirs = await documentedCall(as, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}/hooks/theirs` } });
    expect(theirs.status).to.equal(201);
    const { id } = await register('/hooks/ours', { events: ['connection.created'] });
    upstream.on('POST /hooks/ours', () => ({ status: 200 }));
    upstream.on('POST /hooks/theirs', () => ({ status: 200 }));
    for (const [method, suffix] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/rotate-secret'], ['GET', '/deliveries']] as const) {
      const answer = await documentedCall(as, method, `/v2/webhooks/${id}${suffix}`, method === 'PATCH' ? { body: { enabled: false } } : {});
      expect(answer.status, `${method} ${suffix}`).to.equal(404);
      expect(answer.body.error.code).to.equal('NOT_FOUND');
    }
    expect((await documentedCall(as, 'GET', '/v2/webhooks')).body.data.map((w: { id: string }) => w.id)).to.deep.equal([theirs.body.data.id]);
    await connect();
    await settled(id);
    expect(upstream.calls('POST /hooks/theirs')).to.have.length(0);
    expect((await documentedCall(gw, 'GET', `/v2/webhooks/${theirs.body.data.id}`)).status).to.equal(404);
  });
});

describe('connection webhooks: the egress policy at delivery', function () {
  this.timeout(30_000);
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  before(async () => {
    const defs = await definitionsFor(FIXTURE, 'http://127.0.0.1:9');
    cleanupDefs = defs.cleanup;
    // No EGRESS_ALLOW: loopback is refused.
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_WINDOW_MS: '300', WEBHOOK_POLL_INTERVAL_MS: '50' });
  });
  after(async () => {
    await gw.stop();
    await cleanupDefs();
  });

  it('refuses at registration an https host name that resolves only to a loopback address (it could never be delivered)', async () => {
    const created = await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: 'https://localhost:9/hook' } });
    expect(created.status).to.equal(400);
    expect(created.body.error.details.problems[0]).to.include({ field: 'url', rule: 'egress' });
    expect(created.body.error.message).to.match(/localhost resolves only to addresses the egress policy refuses/);
  });
});
