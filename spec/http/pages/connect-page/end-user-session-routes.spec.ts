import { expect } from 'chai';
import http from 'node:http';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { documentedCall } from '../../../helpers/openapi.ts';
import { ROOT } from '../../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../../helpers/upstream.ts';
import { eventually } from '../../../support/eventually.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/connect-page');
const CUSTOMER = 'https://app.customer.test';

/** An end-user session: the token as the "API key" of call(). */
type Session = { url: string; apiKey: string };

describe('the Connect page\'s end-user routes: session, reconnect (form and OAuth), and the gateway\'s own return page', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let ada: Session;
  let bob: Session;
  let adaId: string;

  const session = async (externalId: string, name?: string): Promise<{ session: Session; id: string }> => {
    const id = (await call(gw, 'POST', '/v1/users', { body: { externalId, ...(name ? { name, email: `${externalId}@example.com` } : {}) } })).body.data.userId;
    const token = (await call(gw, 'GET', `/v1/users/${id}/token`)).body.token;
    return { session: { url: gw.url, apiKey: token }, id };
  };
  const markNeedsReauthorization = async (id: string) => {
    await gw.gateway.services.store.connections.updateOne({ id }, { $set: { status: 'needs_reauthorization' } });
  };

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({
      DEFINITIONS_DIR: defs.dir,
      EGRESS_ALLOW: '127.0.0.1/32',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      END_USER_TOKEN_TTL_SECONDS: '600',
    });
    ({ session: ada, id: adaId } = await session('ada', 'Ada Lovelace'));
    ({ session: bob } = await session('bob'));
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [CUSTOMER], enabledApps: ['notes', 'crm'] } })).status).to.equal(200);
    expect((await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-client-secret' } })).status).to.equal(200);
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });

  it('GET /v2/end-user/session answers who the token is for, the company\'s name and allowed origins, and when the token expires', async () => {
    const before = Date.now();
    const { status, body } = await documentedCall(ada, 'GET', '/v2/end-user/session');
    expect(status, JSON.stringify(body)).to.equal(200);
    const company = (await call(gw, 'GET', '/v1/companies')).body.data[0];
    expect(body.data).to.deep.include({ endUserId: adaId, name: 'Ada Lovelace', email: 'ada@example.com', company: { name: company.name }, allowedOrigins: [CUSTOMER] });
    expect(Date.parse(body.data.expiresAt) - before).to.be.within(590_000, 601_000);
    // Nothing else: no key, no configuration (the theme is the page's look, public to the end user).
    expect(Object.keys(body.data).sort()).to.deep.equal(['allowedOrigins', 'company', 'email', 'endUserId', 'expiresAt', 'name', 'theme']);
    expect((await documentedCall(gw, 'GET', '/v2/end-user/session')).status, 'the API key is not an end-user token').to.equal(401);
    expect((await documentedCall(ada, 'GET', '/v2/end-user/session', { auth: null })).status).to.equal(401);
  });

  it('PATCH /v2/end-user/connections/{id} gives an own form connection new credentials: same id, active again, connection.reauthorized fires; another\'s is 404', async () => {
    const hook = await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}/hooks`, events: ['connection.reauthorized'] } });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    upstream.on('POST /hooks', () => ({ status: 204 }));
    const created = await documentedCall(ada, 'POST', '/v2/end-user/connections', { body: { appSlug: 'notes', credentials: { apiKey: 'nk_oldkey123' }, metadata: { region: 'eu' } } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.data.id;
    await markNeedsReauthorization(id);

    // The same rules as on create, naming the field.
    const bad = await documentedCall(ada, 'PATCH', `/v2/end-user/connections/${id}`, { body: { credentials: { apiKey: 'wrong' } } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.problems.map((p: { field: string; rule: string }) => `${p.field} ${p.rule}`)).to.deep.equal(['credentials.apiKey pattern']);
    expect(JSON.stringify(bad.body)).not.to.include('wrong');

    const foreign = await documentedCall(bob, 'PATCH', `/v2/end-user/connections/${id}`, { body: { credentials: { apiKey: 'nk_bobskey123' } } });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${id} does not exist` });
    expect((await call(gw, 'GET', `/v2/connections/${id}`)).body.data.status, 'another end user changes nothing').to.equal('needs_reauthorization');

    const renewed = await documentedCall(ada, 'PATCH', `/v2/end-user/connections/${id}`, { body: { credentials: { apiKey: 'nk_newkey456' } } });
    expect(renewed.status, JSON.stringify(renewed.body)).to.equal(200);
    expect(renewed.body.data).to.include({ id, status: 'active', endUserId: adaId });
    expect(renewed.body.data.metadata, 'metadata kept when left out').to.deep.equal({ region: 'eu' });
    expect(JSON.stringify(renewed.body)).not.to.include('nk_newkey456');
    const delivered = await eventually(async () => upstream.calls('POST /hooks'), (calls) => calls.length >= 1, 'the reauthorized webhook');
    const event = JSON.parse(delivered[0]!.body);
    expect(event.type).to.equal('connection.reauthorized');
    expect(event.data).to.include({ id, status: 'active' });
    await call(gw, 'DELETE', `/v2/webhooks/${hook.body.data.id}`);
  });

  it('GET /v2/end-user/connections/{id}/reauthorize renews an own OAuth connection in place: once the session confirms what the callback got, the SAME id has new tokens, active, webhook fired', async () => {
    const hook = await documentedCall(gw, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}/oauth-hooks`, events: ['connection.reauthorized', 'connection.created'] } });
    upstream.on('POST /oauth-hooks', () => ({ status: 204 }));
    let tokenCalls = 0;
    upstream.on('POST /oauth/token', () => {
      tokenCalls += 1;
      return { body: { access_token: `access-${tokenCalls}`, refresh_token: `refresh-${tokenCalls}`, expires_in: 3600, token_type: 'Bearer' } };
    });
    const returnUrl = `${gw.url}/connect/oauth-return`;
    const first = await documentedCall(ada, 'GET', `/v2/connect/crm/authorize?returnUrl=${encodeURIComponent(returnUrl)}`);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    const back = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ code: 'c1', state: new URL(first.body.data.authorizationUrl).searchParams.get('state')! })}`, { redirect: 'manual' });
    // Started by Ada's session: nothing is stored until that session confirms what came back.
    const firstChoice = new URL(back.headers.get('location')!).searchParams.get('choiceId')!;
    expect(firstChoice).to.match(/^cho_/);
    const confirmed = await documentedCall(ada, 'POST', `/v2/connect/choices/${firstChoice}`, { body: { optionId: '1' } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
    const id = confirmed.body.data.connectionId;
    expect(id).to.match(/^con_/);
    await markNeedsReauthorization(id);

    expect((await documentedCall(bob, 'GET', `/v2/end-user/connections/${id}/reauthorize?returnUrl=${encodeURIComponent(returnUrl)}`)).status, "another end user's").to.equal(404);
    const form = (await call(ada, 'GET', '/v2/end-user/connections')).body.data.find((c: { appSlug: string }) => c.appSlug === 'notes');
    const wrongKind = await documentedCall(ada, 'GET', `/v2/end-user/connections/${form.id}/reauthorize?returnUrl=${encodeURIComponent(returnUrl)}`);
    expect(wrongKind.status).to.equal(400);
    expect(wrongKind.body.error.details.problems[0]).to.include({ field: 'connectionId', rule: 'oauth2' });
    const viaPatch = await documentedCall(ada, 'PATCH', `/v2/end-user/connections/${id}`, { body: { credentials: { accessToken: 'x' } } });
    expect(viaPatch.status).to.equal(400);
    expect(viaPatch.body.error.details.problems[0]).to.include({ field: 'credentials', rule: 'oauth2' });
    const elsewhere = await documentedCall(ada, 'GET', `/v2/end-user/connections/${id}/reauthorize?returnUrl=${encodeURIComponent('https://evil.example/steal')}`);
    expect(elsewhere.status).to.equal(400);
    expect(elsewhere.body.error.details.problems[0]).to.include({ field: 'returnUrl', rule: 'origin' });

    const again = await documentedCall(ada, 'GET', `/v2/end-user/connections/${id}/reauthorize?returnUrl=${encodeURIComponent(returnUrl)}`);
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    const done = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ code: 'c2', state: new URL(again.body.data.authorizationUrl).searchParams.get('state')! })}`, { redirect: 'manual' });
    expect(done.status).to.equal(302);
    const location = new URL(done.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).to.equal(returnUrl);
    const renewal = location.searchParams.get('choiceId')!;
    expect((await documentedCall(bob, 'POST', `/v2/connect/choices/${renewal}`, { body: { optionId: '1' } })).status, "another end user's session").to.equal(404);
    const renewed = await documentedCall(ada, 'POST', `/v2/connect/choices/${renewal}`, { body: { optionId: '1' } });
    expect(renewed.body.data).to.deep.equal({ connectionId: id, created: false });

    const mine = (await call(ada, 'GET', '/v2/end-user/connections')).body.data.filter((c: { appSlug: string }) => c.appSlug === 'crm');
    expect(mine.map((c: { id: string; status: string }) => [c.id, c.status])).to.deep.equal([[id, 'active']]);
    const events = await eventually(
      async () => upstream.calls('POST /oauth-hooks').map((r) => JSON.parse(r.body)),
      (list) => list.some((e) => e.type === 'connection.reauthorized'),
      'the reauthorized webhook',
    );
    expect(events.filter((e) => e.type === 'connection.created').map((e) => e.data.id)).to.deep.equal([id]);
    expect(events.find((e) => e.type === 'connection.reauthorized').data).to.include({ id, status: 'active' });
    expect(gw.logs()).not.to.match(/access-2|refresh-2|crm-client-secret/);
    await call(gw, 'DELETE', `/v2/webhooks/${hook.body.data.id}`);
  });

  it("the OAuth returnUrl takes the gateway's own /connect/oauth-return, and still refuses every origin the company does not allow", async () => {
    const ask = (returnUrl: string) => documentedCall(ada, 'GET', `/v2/connect/crm/authorize?returnUrl=${encodeURIComponent(returnUrl)}`);
    expect((await ask(`${gw.url}/connect/oauth-return`)).status).to.equal(200);
    expect((await ask(`${CUSTOMER}/back`)).status).to.equal(200);
    for (const refused of ['https://evil.example/connect/oauth-return', `${gw.url}/v2/end-user/apps`, 'http://localhost:1/connect/oauth-return']) {
      const answer = await ask(refused);
      expect(answer.status, refused).to.equal(400);
      expect(answer.body.error.details.problems[0], refused).to.include({ field: 'returnUrl', rule: 'origin' });
    }
  });

  it("with PUBLIC_BASE_URL unset, a Host naming another loopback port does not make that port's return page the gateway's own", async () => {
    const port = Number(new URL(gw.url).port);
    // What a browser cannot send but any script can: a Host naming the port of another local program.
    const authorize = (host: string, returnUrl: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const request = http.request(
          { host: '127.0.0.1', port, path: `/v2/connect/crm/authorize?returnUrl=${encodeURIComponent(returnUrl)}`, headers: { host, authorization: `Bearer ${ada.apiKey}` } },
          (response) => {
            let text = '';
            response.setEncoding('utf8').on('data', (chunk) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
          },
        );
        request.on('error', reject).end();
      });
    for (const other of [port + 1, 1, 65535].filter((p) => p !== port && p <= 65535)) {
      for (const host of [`127.0.0.1:${other}`, `localhost:${other}`]) {
        const answer = await authorize(host, `http://${host}/connect/oauth-return`);
        expect(answer.status, host).to.equal(400);
        expect(answer.body.error.details.problems[0], host).to.include({ field: 'returnUrl', rule: 'origin' });
      }
    }
    const own = await authorize(`127.0.0.1:${port}`, `http://127.0.0.1:${port}/connect/oauth-return`);
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
  });
});
