import { expect } from 'chai';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { V1_ENDPOINTS } from '../../../engine/http/openapi/v1-endpoints.ts';
import { V2_ENDPOINTS } from '../../../engine/http/openapi/v2-endpoints.ts';
import { refusesUnknownQuery } from '../../../engine/http/openapi/endpoint.ts';

/**
 * The lists answered whole (no pagination) take no query parameter, or only
 * `version`: like the paginated ones, they refuse any other with 400 naming
 * it, so `limit=1` is not silently ignored. call() holds each answer to the
 * OpenAPI documents, so each operation must declare its 400 too.
 */
describe('lists answered whole refuse an unknown query parameter', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let webhookId: string;
  let endUser: { url: string; apiKey: string };
  let appSlug: string;

  before(async () => {
    gw = await startTestGateway({ EGRESS_ALLOW: '127.0.0.1/32' });
    webhookId = (await call(gw, 'POST', '/v2/webhooks', { body: { url: 'http://127.0.0.1:9/in', events: ['connection.created'] } })).body.data.id;
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    endUser = { url: gw.url, apiKey: (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token };
    appSlug = (await call(gw, 'GET', '/v2/universal/apps')).body.data[0].slug;
  });
  after(async () => {
    await gw?.stop();
  });

  const expectRefused = (answer: { status: number; body: any }, parameter: string) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
    expect(answer.body).to.deep.equal({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: `${parameter}: is not a known query parameter`,
        details: { problems: [{ field: parameter, rule: 'additionalProperties', message: 'is not a known query parameter' }] },
      },
    });
  };

  it('GET /v2/webhooks?limit=1', async () => {
    expectRefused(await call(gw, 'GET', '/v2/webhooks?limit=1'), 'limit');
    expect((await call(gw, 'GET', '/v2/webhooks')).status).to.equal(200);
  });

  it('GET /v2/webhooks/{id}/deliveries?limit=1', async () => {
    expectRefused(await call(gw, 'GET', `/v2/webhooks/${webhookId}/deliveries?limit=1`), 'limit');
    expect((await call(gw, 'GET', `/v2/webhooks/${webhookId}/deliveries`)).status).to.equal(200);
  });

  it('GET /v1/users?limit=1', async () => {
    expectRefused(await call(gw, 'GET', '/v1/users?limit=1'), 'limit');
    expect((await call(gw, 'GET', '/v1/users')).status).to.equal(200);
  });

  it('GET /v2/universal/apps?foo=1', async () => {
    expectRefused(await call(gw, 'GET', '/v2/universal/apps?foo=1'), 'foo');
  });

  it('GET /v2/universal/apps/{appSlug}/actions?limt=5, still taking ?version', async () => {
    expectRefused(await call(gw, 'GET', `/v2/universal/apps/${appSlug}/actions?version=published&limt=5`), 'limt');
    expect((await call(gw, 'GET', `/v2/universal/apps/${appSlug}/actions?version=published`)).status).to.equal(200);
  });

  it('GET /v2/end-user/apps?limit=1 (end-user token)', async () => {
    expectRefused(await call(endUser, 'GET', '/v2/end-user/apps?limit=1'), 'limit');
    expect((await call(endUser, 'GET', '/v2/end-user/apps')).status).to.equal(200);
  });
});

/**
 * Every documented operation, not only the lists: a query parameter its document does not declare is refused
 * (`GET /v1/users/{id}/token?ttl=60` answered a token of the default lifetime, as if ttl were read), before the
 * handler looks anything up, so the ids below need not exist. The proxy forwards a query as it is, the OAuth
 * callback takes what a provider adds (scope, iss, session_state), and the two documents declare only their 200
 * (the specification), so they are not among them.
 */
describe('every documented operation refuses a query parameter it does not declare', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let endUserToken: string;

  before(async () => {
    gw = await startTestGateway();
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    endUserToken = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
  });
  after(async () => {
    await gw?.stop();
  });

  it('answers 400 VALIDATION_ERROR naming it, held to the documents', async () => {
    const checked: string[] = [];
    for (const endpoint of [...V1_ENDPOINTS, ...V2_ENDPOINTS]) {
      if (!refusesUnknownQuery(endpoint)) continue;
      const path = endpoint.path.replace(/\{[^}]+\}/g, 'x1');
      const auth = endpoint.security === 'endUserToken' ? endUserToken : undefined;
      const body = ['post', 'put', 'patch'].includes(endpoint.method) ? {} : undefined;
      const answer = await call(gw, endpoint.method.toUpperCase(), `${path}?zz=1`, { ...(auth ? { auth } : {}), ...(body ? { body } : {}) });
      expect(answer.status, `${endpoint.method} ${endpoint.path}: ${JSON.stringify(answer.body)}`).to.equal(400);
      expect(answer.body.error, `${endpoint.method} ${endpoint.path}`).to.deep.include({ code: 'VALIDATION_ERROR', message: 'zz: is not a known query parameter' });
      checked.push(`${endpoint.method} ${endpoint.path}`);
    }
    expect(checked).to.include.members(['get /v1/users/{userId}/token', 'post /v1/users', 'get /v2/embedding', 'get /v2/definitions/status']);
  });

  it('refuses it on every form of the path the router serves: one trailing slash, any letter case (GET /v1/users/{id}/token/?ttl=60 answered a token)', async () => {
    let checked = 0;
    for (const endpoint of [...V1_ENDPOINTS, ...V2_ENDPOINTS]) {
      if (!refusesUnknownQuery(endpoint)) continue;
      const path = endpoint.path.replace(/\{[^}]+\}/g, 'x1');
      const auth = endpoint.security === 'endUserToken' ? endUserToken : undefined;
      const body = ['post', 'put', 'patch'].includes(endpoint.method) ? {} : undefined;
      for (const form of [`${path}/`, path.toUpperCase(), `${path.toUpperCase()}/`]) {
        const answer = await call(gw, endpoint.method.toUpperCase(), `${form}?zz=1`, { ...(auth ? { auth } : {}), ...(body ? { body } : {}) });
        expect(answer.status, `${endpoint.method} ${form}: ${JSON.stringify(answer.body)}`).to.equal(400);
        expect(answer.body.error, `${endpoint.method} ${form}`).to.deep.include({ code: 'VALIDATION_ERROR', message: 'zz: is not a known query parameter' });
        checked++;
      }
    }
    expect(checked).to.be.above(100);
  });

  it('still takes a documented one, and the OAuth callback what a provider adds', async () => {
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'grace' } })).body.data.userId;
    const token = await call(gw, 'GET', `/v1/users/${userId}/token`);
    expect(token.status).to.equal(200);
    const callback = await call(gw, 'GET', '/v2/connect/callback?state=unknown&code=c&scope=a+b&iss=https%3A%2F%2Fid.example&session_state=s', { auth: null });
    expect(callback.body.error?.code, JSON.stringify(callback.body)).to.equal('OAUTH_STATE_INVALID');
  });
});
