import { expect } from 'chai';
import path from 'node:path';
import { browserEndpoints } from '../../../engine/http/embedding/cors.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const ALLOWED = 'https://app.customer.test';

/** What a browser sees of a preflight: status, Access-Control-Allow-Origin, the error message. */
async function preflight(gw: TestGateway, method: string, path: string) {
  const response = await fetch(gw.url + path, { method: 'OPTIONS', headers: { Origin: ALLOWED, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization,content-type' } });
  const text = await response.text();
  return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body: text ? JSON.parse(text) : undefined };
}

/** The real request a page sends after the preflight, with `auth` as its bearer (fetch sends the path as given). */
async function real(gw: TestGateway, auth: string, method: string, path: string, origin: string | null = ALLOWED) {
  const withBody = ['POST', 'PUT', 'PATCH'].includes(method);
  const response = await fetch(gw.url + path, {
    method,
    headers: { Authorization: `Bearer ${auth}`, ...(origin ? { Origin: origin } : {}), ...(withBody ? { 'Content-Type': 'application/json' } : {}) },
    ...(withBody ? { body: '{}' } : {}),
  });
  const text = await response.text();
  return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), vary: response.headers.get('vary'), body: text ? JSON.parse(text) : undefined };
}

/** The forms of a path the router routes as that path: letter case (it is case-insensitive) and one trailing slash. */
const forms = (path: string) => [
  path,
  path.toUpperCase(),
  path.replace(/\/([a-z])/g, (_, letter: string) => `/${letter.toUpperCase()}`),
  `${path}/`,
  `${path.toUpperCase()}/`,
];

describe('CORS: a preflight is answered as the router routes its path (letter case, trailing slash, escapes)', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let token: string;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [ALLOWED], enabledApps: ['acme-crm'] } });
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    token = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
  });
  after(async () => {
    await gw.stop();
  });

  it('opens every end-user endpoint in each form the router routes: the preflight 204, the request routed and readable by the page', async () => {
    for (const endpoint of browserEndpoints()) {
      const method = [...endpoint.methods].find((m) => m !== 'HEAD')!;
      const sample = endpoint.path.replace(/\{[^}]+\}/g, 'x');
      for (const path of forms(sample)) {
        const before = await preflight(gw, method, path);
        expect(before.status, `preflight ${method} ${path}: ${JSON.stringify(before.body)}`).to.equal(204);
        expect(before.allowOrigin, path).to.equal(ALLOWED);
        const answer = await real(gw, token, method, path);
        expect(answer.body?.error?.message ?? '', `${method} ${path}`).not.to.match(/^no route for/);
        expect(answer.allowOrigin, `${method} ${path} (${answer.status})`).to.equal(ALLOWED);
      }
    }
  });

  it('as found: GET /V2/END-USER/APPS, preflight and request, as /v2/end-user/apps', async () => {
    for (const path of ['/v2/end-user/apps', '/V2/END-USER/APPS', '/V2/End-User/Apps/']) {
      expect((await preflight(gw, 'GET', path)).status, path).to.equal(204);
      const answer = await real(gw, token, 'GET', path);
      expect(answer.status, path).to.equal(200);
      expect(answer.body.data.map((app: { slug: string }) => app.slug), path).to.deep.equal(['acme-crm']);
      expect(answer.allowOrigin, path).to.equal(ALLOWED);
      // A backend's request (no Origin) gets Vary: Origin on every form, as a cache must keep them apart.
      expect((await real(gw, token, 'GET', path, null)).vary, path).to.equal('Origin');
    }
  });

  it('still refuses an API-key endpoint in any of those forms: the preflight 403 naming the path, the answer without CORS headers', async () => {
    for (const [method, sample] of [
      ['GET', '/v1/users'],
      ['POST', '/v2/connections'],
      ['POST', '/v2/universal/apps/acme-crm/actions/list-contacts/run'],
    ] as const) {
      for (const path of forms(sample)) {
        const answer = await preflight(gw, method, path);
        expect(answer.status, path).to.equal(403);
        expect(answer.allowOrigin, path).to.equal(null);
        expect(answer.body.error.message).to.equal(`${path} is not open to browsers: only the end-user-token endpoints answer cross-origin requests; call API-key endpoints from your backend`);
        const withKey = await real(gw, gw.apiKey, method, path);
        expect(withKey.body?.error?.message ?? '', `${method} ${path}`).not.to.match(/^no route for/);
        expect(withKey.allowOrigin, path).to.equal(null);
      }
    }
  });

  it('refuses the preflight of a path the router does not route (an escaped letter of a fixed segment, two slashes): the request is 404 too', async () => {
    for (const path of ['/v2/end-user/%61pps', '/v2/end%2Duser/apps', '/v2//end-user/apps', '/v2/end-user/apps//']) {
      expect((await preflight(gw, 'GET', path)).status, path).to.equal(403);
      const answer = await real(gw, token, 'GET', path);
      expect(answer.status, path).to.equal(404);
      expect(answer.allowOrigin, path).to.equal(null);
    }
  });

  it('opens an escaped path parameter as the router decodes it (con%2F1 is the connection "con/1")', async () => {
    const path = '/v2/end-user/connections/con%2F1';
    expect((await preflight(gw, 'DELETE', path)).status).to.equal(204);
    const answer = await real(gw, token, 'DELETE', path);
    expect(answer.status).to.equal(404);
    expect(answer.body.error.message).to.equal('connection con/1 does not exist');
    expect(answer.allowOrigin).to.equal(ALLOWED);
  });
});
