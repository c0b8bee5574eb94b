import { expect } from 'chai';
import path from 'node:path';
import { browserEndpoints } from '../../../engine/http/embedding/cors.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { otherTenant } from '../../helpers/tenants.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const ALLOWED = 'https://app.customer.test';
const OTHER_COMPANYS = 'https://other.customer.test';
const UNKNOWN = 'https://evil.example';

/** What a browser sees of a preflight: status and the CORS headers. */
async function preflight(gw: TestGateway, origin: string, method: string, path: string) {
  const response = await fetch(gw.url + path, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization,content-type' },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

describe('CORS: end-user-token endpoints open to the allowed origins only, API-key endpoints never', () => {
  let gw: TestGateway;
  let token: string;
  let otherToken: string;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [ALLOWED], enabledApps: ['acme-crm'] } });
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    token = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
    // A second company allows another origin: its origin passes a preflight, but not with this company's token.
    const other = await otherTenant(gw.gateway.services.store);
    const otherCompany = { url: gw.url, apiKey: other.apiKey };
    await call(otherCompany, 'PUT', '/v2/embedding', { body: { allowedOrigins: [OTHER_COMPANYS], enabledApps: [] } });
    const otherUser = (await call(otherCompany, 'POST', '/v1/users', { body: { externalId: 'zed' } })).body.data.userId;
    otherToken = (await call(otherCompany, 'GET', `/v1/users/${otherUser}/token`)).body.token;
  });
  after(async () => {
    await gw.stop();
  });

  it('opens exactly the endpoints the OpenAPI documents say an end-user token may call', () => {
    const opened = browserEndpoints().map((e) => `${[...e.methods].join(',')} ${e.path}`);
    expect(opened).to.have.members([
      'POST /v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run',
      'GET /v2/end-user/apps',
      'GET,POST /v2/end-user/connections',
      'PATCH,DELETE /v2/end-user/connections/{connectionId}',
      'GET /v2/end-user/connections/{connectionId}/reauthorize',
      'GET /v2/end-user/session',
      'GET /v2/connect/{appSlug}/authorize',
      'GET,POST /v2/connect/choices/{choiceId}',
      'POST /v2/end-user/apps/{appSlug}/actions/{actionSlug}/run',
      'GET,HEAD,POST,PUT,PATCH,DELETE /v2/end-user/proxy/{connectionId}/{path}',
      'GET,HEAD,POST,PUT,PATCH,DELETE /v2/end-user/proxy/{connectionId}',
    ]);
    // The proxy without a path (the app's base URL), with or without the trailing slash; any header a page asks for, as with a path.
    const base = browserEndpoints().find((e) => e.path === '/v2/end-user/proxy/{connectionId}')!;
    expect(['/v2/end-user/proxy/con_1', '/v2/end-user/proxy/con_1/', '/v2/end-user/proxy/con_1/x'].map((p) => base.pattern.test(p))).to.deep.equal([true, true, false]);
    expect(base.anyHeaders).to.equal(true);
    const proxy = browserEndpoints().find((e) => e.path.startsWith('/v2/end-user/proxy'))!;
    expect(proxy.pattern.test('/v2/end-user/proxy/con_1/files/a/b.txt')).to.equal(true);
    expect(proxy.pattern.test('/v2/proxy/con_1/files/a')).to.equal(false);
    const run = browserEndpoints().find((e) => e.path.startsWith('/v1/installation'))!;
    expect(run.pattern.test('/v1/installation/apps/acme/1/action/list/run')).to.equal(true);
    expect(run.pattern.test('/v1/installation/apps/acme/1/action/list/run/more')).to.equal(false);
  });

  it('answers the preflight of an end-user endpoint from an allowed origin: 204 with the origin, methods and headers', async () => {
    for (const [method, path] of [
      ['POST', '/v2/end-user/connections'],
      ['DELETE', '/v2/end-user/connections/con_1'],
      ['POST', '/v1/installation/apps/acme/1/action/list-contacts/run'],
      ['GET', '/v2/connect/acme-crm/authorize'],
    ] as const) {
      const answer = await preflight(gw, ALLOWED, method, path);
      expect(answer.status, path).to.equal(204);
      expect(answer.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      expect(answer.headers.get('access-control-allow-methods')).to.include(method);
      expect(answer.headers.get('access-control-allow-headers')).to.equal('Authorization, Content-Type, X-Request-Id');
      expect(answer.headers.get('access-control-max-age')).to.equal('600');
      expect(answer.headers.get('vary')).to.include('Origin');
      expect(answer.headers.get('access-control-allow-credentials')).to.equal(null);
    }
  });

  it('refuses the preflight of an origin no company allows: 403 without Access-Control-Allow-Origin, naming the setting', async () => {
    const answer = await preflight(gw, UNKNOWN, 'GET', '/v2/end-user/connections');
    expect(answer.status).to.equal(403);
    expect(answer.headers.get('access-control-allow-origin')).to.equal(null);
    expect(answer.body.error).to.deep.equal({ code: 'FORBIDDEN', message: `origin ${UNKNOWN} is not an allowed origin: add it to allowedOrigins with PUT /v2/embedding` });
  });

  it('refuses the preflight of every API-key endpoint, even from an allowed origin', async () => {
    for (const [method, path] of [
      ['POST', '/v2/connections'],
      ['GET', '/v2/embedding'],
      ['GET', '/v1/users'],
      ['POST', '/v2/universal/apps/acme-crm/actions/list-contacts/run'],
    ] as const) {
      const answer = await preflight(gw, ALLOWED, method, path);
      expect(answer.status, path).to.equal(403);
      expect(answer.headers.get('access-control-allow-origin'), path).to.equal(null);
      expect(answer.body.error.message).to.equal(`${path} is not open to browsers: only the end-user-token endpoints answer cross-origin requests; call API-key endpoints from your backend`);
    }
  });

  it('answers a request without Origin (a backend) with Vary: Origin on an end-user endpoint only, and no CORS headers', async () => {
    const endUser = await call({ url: gw.url, apiKey: token }, 'GET', '/v2/end-user/apps');
    expect(endUser.status).to.equal(200);
    expect(endUser.headers.get('vary')).to.equal('Origin');
    expect(endUser.headers.get('access-control-allow-origin')).to.equal(null);
    const byId = await call({ url: gw.url, apiKey: token }, 'DELETE', '/v2/end-user/connections/con_nothing');
    expect(byId.headers.get('vary')).to.equal('Origin');
    const apiKey = await call(gw, 'GET', '/v1/users');
    expect(apiKey.status).to.equal(200);
    expect(apiKey.headers.get('vary')).to.equal(null);
    expect(apiKey.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it("lets the page read an end-user answer when the token's company allows its origin", async () => {
    const answer = await call({ url: gw.url, apiKey: token }, 'GET', '/v2/end-user/apps', { headers: { Origin: ALLOWED } });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
    expect(answer.headers.get('access-control-expose-headers')).to.include('X-Request-Id');
    expect(answer.headers.get('vary')).to.include('Origin');
    // A failure is readable too (the page shows why).
    const refused = await call({ url: gw.url, apiKey: token }, 'POST', '/v2/end-user/connections', { headers: { Origin: ALLOWED }, body: { appSlug: 'oauthy' } });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('APP_NOT_ENABLED');
    expect(refused.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
  });

  it("refuses, before it does anything, a request from an origin the token's company does not allow, another company's included", async () => {
    const before = await gw.gateway.services.store.connections.count({});
    for (const origin of [OTHER_COMPANYS, UNKNOWN]) {
      const answer = await call({ url: gw.url, apiKey: token }, 'POST', '/v2/end-user/connections', {
        headers: { Origin: origin },
        body: { appSlug: 'acme-crm', credentials: { apiKey: 'k' }, metadata: { region: 'eu' } },
      });
      expect(answer.status, origin).to.equal(403);
      expect(answer.body.error).to.deep.equal({ code: 'FORBIDDEN', message: `origin ${origin} is not one of your company's allowed origins: add it to allowedOrigins with PUT /v2/embedding` });
      expect(answer.headers.get('access-control-allow-origin')).to.equal(null);
    }
    expect(await gw.gateway.services.store.connections.count({})).to.equal(before);
    // The other company's token from its own origin is fine.
    const own = await call({ url: gw.url, apiKey: otherToken }, 'GET', '/v2/end-user/connections', { headers: { Origin: OTHER_COMPANYS } });
    expect(own.status).to.equal(200);
    expect(own.headers.get('access-control-allow-origin')).to.equal(OTHER_COMPANYS);
  });

  it('lets a page on an allowed origin read a refused token (to say it expired), but not a page on an unknown origin', async () => {
    const expired = await call({ url: gw.url, apiKey: `${token.slice(0, -4)}AAAA` }, 'GET', '/v2/end-user/connections', { headers: { Origin: ALLOWED } });
    expect(expired.status).to.equal(401);
    expect(expired.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
    const unknown = await call({ url: gw.url, apiKey: 'nonsense' }, 'GET', '/v2/end-user/connections', { headers: { Origin: UNKNOWN } });
    expect(unknown.status).to.equal(401);
    expect(unknown.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('never answers an API-key endpoint with CORS headers, from any origin', async () => {
    for (const origin of [ALLOWED, UNKNOWN]) {
      const answer = await call(gw, 'GET', '/v2/connections', { headers: { Origin: origin } });
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('access-control-allow-origin')).to.equal(null);
    }
    // Not even when the connect endpoint that takes both is called with the API key.
    const withKey = await call(gw, 'GET', `/v2/connect/acme-crm/authorize?returnUrl=${encodeURIComponent(`${ALLOWED}/back`)}`, { headers: { Origin: ALLOWED } });
    expect(withKey.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it("admits the gateway's own pages (same origin) without a setting", async () => {
    const answer = await call({ url: gw.url, apiKey: token }, 'GET', '/v2/end-user/connections', { headers: { Origin: gw.url } });
    expect(answer.status).to.equal(200);
  });

  it('leaves requests without an Origin (servers, curl) as they were', async () => {
    const answer = await call({ url: gw.url, apiKey: token }, 'GET', '/v2/end-user/connections');
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('access-control-allow-origin')).to.equal(null);
  });
});
