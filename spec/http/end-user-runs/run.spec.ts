import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const ORIGIN = 'https://app.customer.test';

/** An end-user session: the token as the "API key" of call(). */
type Session = { url: string; apiKey: string };

/** The envelope without what differs between two runs of the same call (timings, ids of the run). */
function comparable(body: any): any {
  const { meta, ...rest } = body;
  const { durationMs: _d, runId: _r, requestId: _q, ...kept } = meta ?? {};
  if (kept.response) kept.response = { status: kept.response.status, body: kept.response.body };
  return { ...rest, meta: kept };
}

describe('POST /v2/end-user/apps/{appSlug}/actions/{actionSlug}/run (end-user token)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let ada: Session;
  let bob: Session;
  let adaConnection: string;
  let bobConnection: string;
  let companyConnection: string;
  const session = async (externalId: string, isTestUser = false): Promise<{ session: Session; id: string }> => {
    const id = (await call(gw, 'POST', '/v1/users', { body: { externalId, isTestUser } })).body.data.userId;
    const token = (await call(gw, 'GET', `/v1/users/${id}/token`)).body.token;
    return { session: { url: gw.url, apiKey: token }, id };
  };
  const run = (who: Session, body: unknown, action = 'list-orders', query = '', app = 'shop') =>
    documentedCall(who, 'POST', `/v2/end-user/apps/${app}/actions/${action}/run${query}`, { body });

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [ORIGIN], enabledApps: ['shop'] } })).status).to.equal(200);
    ({ session: ada } = await session('ada'));
    ({ session: bob } = await session('bob'));
    adaConnection = (await call(ada, 'POST', '/v2/end-user/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'ada-shop-key' } } })).body.data.id;
    bobConnection = (await call(bob, 'POST', '/v2/end-user/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'bob-shop-key' } } })).body.data.id;
    companyConnection = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'company-key' } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => {
    upstream.reset();
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'o1' }, { id: 'o2' }] } } }));
  });

  it("runs the action with the end user's own connection: the app receives that connection's credential, the answer is the envelope", async () => {
    const { status, body } = await run(ada, { connectionId: adaConnection, arguments: { status: 'open' } });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body.success).to.equal(true);
    expect(body.data).to.deep.equal([{ id: 'o1' }, { id: 'o2' }]);
    expect(body.meta.action).to.include({ slug: 'list-orders', operation: 'list' });
    const [sent] = upstream.calls('GET /api/orders');
    expect(sent!.headers['x-api-key']).to.equal('ada-shop-key');
    expect(sent!.query.get('status')).to.equal('open');
    expect(JSON.stringify(body)).not.to.include('ada-shop-key');
    expect(gw.logs()).not.to.include('ada-shop-key');
  });

  it('answers exactly what the universal run answers for the same connection: a success, the app answering 404 (success false), missing and wrong arguments (400)', async () => {
    upstream.on('GET /api/orders/o1', () => ({ body: { id: 'o1', total: 5 } }));
    upstream.on('GET /api/orders/gone', () => ({ status: 404, body: { message: 'no such order' } }));
    const cases: [string, Record<string, unknown>][] = [
      ['get-order', { orderId: 'o1' }],
      ['get-order', { orderId: 'gone' }],
      ['get-order', {}],
      ['list-orders', { status: 'lost' }],
    ];
    for (const [action, args] of cases) {
      const mine = await run(ada, { connectionId: adaConnection, arguments: args }, action);
      const universal = await documentedCall(gw, 'POST', `/v2/universal/apps/shop/actions/${action}/run`, { body: { connectionId: adaConnection, arguments: args } });
      expect(mine.status, `${action} ${JSON.stringify(args)}: ${JSON.stringify(mine.body)}`).to.equal(universal.status);
      expect(comparable(mine.body)).to.deep.equal(comparable(universal.body));
    }
  });

  it("treats another end user's connection, the company's and a missing one alike: 404, and nothing reaches the app", async () => {
    for (const id of [bobConnection, companyConnection, 'con_missing']) {
      const { status, body } = await run(ada, { connectionId: id });
      expect(status).to.equal(404);
      expect(body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${id} does not exist` });
    }
    // Another company's end user with the same id in hand sees none of it either.
    const other = await otherTenant(gw.gateway.services.store);
    const strangerId = (await call({ url: gw.url, apiKey: other.apiKey }, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    await call({ url: gw.url, apiKey: other.apiKey }, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['shop'] } });
    const stranger = { url: gw.url, apiKey: (await call({ url: gw.url, apiKey: other.apiKey }, 'GET', `/v1/users/${strangerId}/token`)).body.token };
    expect((await run(stranger, { connectionId: adaConnection })).status).to.equal(404);
    expect(upstream.received).to.have.length(0);
  });

  it('runs only an app the company enabled (403 APP_NOT_ENABLED, as the other end-user routes), checked before anything else', async () => {
    const { status, body } = await run(ada, { connectionId: adaConnection }, 'list-contacts', '', 'crm');
    expect(status).to.equal(403);
    expect(body.error).to.deep.equal({ code: 'APP_NOT_ENABLED', message: 'app "crm" is not enabled for end users: the company adds it to enabledApps with PUT /v2/embedding' });
    // Disabling an app stops its runs, even with a connection made while it was enabled.
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [ORIGIN], enabledApps: [] } });
    try {
      expect((await run(ada, { connectionId: adaConnection })).body.error.code).to.equal('APP_NOT_ENABLED');
    } finally {
      await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [ORIGIN], enabledApps: ['shop'] } });
    }
    expect(upstream.received).to.have.length(0);
  });

  it('runs a draft version only for a test end user (403 otherwise); an unknown version or action is named', async () => {
    const draft = await run(ada, { connectionId: adaConnection }, 'list-orders', '?version=draft');
    expect(draft.status).to.equal(403);
    expect(draft.body.error).to.deep.equal({ code: 'FORBIDDEN', message: 'draft versions run only for test end users (isTestUser: true); use published or a version number' });
    expect(upstream.received).to.have.length(0);

    const { session: tester } = await session('tester', true);
    const testerConnection = (await call(tester, 'POST', '/v2/end-user/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'tester-key' } } })).body.data.id;
    const asTester = await run(tester, { connectionId: testerConnection }, 'list-orders', '?version=draft');
    expect(asTester.status, JSON.stringify(asTester.body)).to.equal(200);
    expect(asTester.body.success).to.equal(true);
    expect(upstream.calls('GET /api/orders')[0]!.headers['x-api-key']).to.equal('tester-key');

    expect((await run(ada, { connectionId: adaConnection }, 'list-orders', '?version=7')).body.error.code).to.equal('APP_VERSION_NOT_FOUND');
    const unknownAction = await run(ada, { connectionId: adaConnection }, 'nope');
    expect(unknownAction.status).to.equal(404);
    expect(unknownAction.body.error.code).to.equal('ACTION_NOT_FOUND');
  });

  it('checks the body (connectionId required, nothing else but arguments) and takes only an end-user token', async () => {
    const missing = await run(ada, { arguments: {} });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.details.problems).to.deep.include({ field: 'connectionId', rule: 'required', message: 'is required' });
    const extra = await run(ada, { connectionId: adaConnection, installationId: 'ins_x' });
    expect(extra.status).to.equal(400);
    expect(extra.body.error.message).to.include('installationId');
    const noBody = await documentedCall(ada, 'POST', '/v2/end-user/apps/shop/actions/list-orders/run');
    expect(noBody.status).to.equal(400);
    expect((await run(gw, { connectionId: adaConnection })).status).to.equal(401);
    expect((await run({ url: gw.url, apiKey: 'not-a-token' }, { connectionId: adaConnection })).status).to.equal(401);
    expect(upstream.received).to.have.length(0);
  });

  it('is open to the company\'s allowed origins (CORS from the OpenAPI security) and refused from another origin', async () => {
    const preflight = await fetch(`${gw.url}/v2/end-user/apps/shop/actions/list-orders/run`, {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(ORIGIN);
    expect(preflight.headers.get('access-control-allow-methods')).to.equal('POST');
    const fromPage = await call(ada, 'POST', '/v2/end-user/apps/shop/actions/list-orders/run', { body: { connectionId: adaConnection }, headers: { Origin: ORIGIN } });
    expect(fromPage.status).to.equal(200);
    expect(fromPage.headers.get('access-control-allow-origin')).to.equal(ORIGIN);
    const elsewhere = await call(ada, 'POST', '/v2/end-user/apps/shop/actions/list-orders/run', { body: { connectionId: adaConnection }, headers: { Origin: 'https://evil.test' } });
    expect(elsewhere.status).to.equal(403);
    expect(elsewhere.headers.get('access-control-allow-origin')).to.equal(null);
    expect(upstream.calls('GET /api/orders')).to.have.length(1);
  });
});
