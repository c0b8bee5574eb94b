import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');
const PAGE = 'https://app.example.com';

describe('the proxy for end users: /v2/end-user/proxy/{connectionId}/{path} with an end-user token', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let token: string;
  let mine: string;
  let theirs: string;
  let company: string;

  const embedding = (body: Record<string, unknown>) => call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [PAGE], enabledApps: ['files'], ...body } });
  const endUser = async (externalId: string) => (await call(gw, 'POST', '/v1/users', { body: { externalId } })).body.data.userId as string;
  const connectionOf = async (endUserId: string | null, apiKey: string) =>
    (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'files', credentials: { apiKey }, ...(endUserId ? { endUserId } : {}) } })).body.data.id as string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    const me = await endUser('proxy-me');
    const other = await endUser('proxy-other');
    mine = await connectionOf(me, 'my-key-0123456');
    theirs = await connectionOf(other, 'their-key-0123456');
    company = await connectionOf(null, 'company-key-0123456');
    token = (await call(gw, 'GET', `/v1/users/${me}/token`)).body.token;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  afterEach(() => upstream.reset());

  it('is off until the company turns it on (403 FORBIDDEN saying how); then reaches the app with the connection\'s credentials', async () => {
    upstream.on('GET /files/v1/me', (req) => ({ body: { key: req.headers['x-api-key'] === 'my-key-0123456' } }));
    await embedding({});
    const off = await send(gw, 'GET', `/v2/end-user/proxy/${mine}/me`, { auth: token });
    expect(off.status).to.equal(403);
    expect(off.body.error).to.deep.equal({ code: 'FORBIDDEN', message: 'the proxy is not open to end users: the company turns it on with PUT /v2/embedding (endUserProxy: true)' });
    expect(upstream.received).to.deep.equal([]);
    await embedding({ endUserProxy: true });
    const on = await send(gw, 'GET', `/v2/end-user/proxy/${mine}/me`, { auth: token });
    expect(on.status).to.equal(200);
    expect(on.body).to.deep.equal({ key: true });
  });

  it("reaches the app's base URL itself at /v2/end-user/proxy/{connectionId}, with or without the trailing slash", async () => {
    upstream.on('GET /files/v1/', (req) => ({ body: { root: req.headers['x-api-key'] === 'my-key-0123456' } }));
    await embedding({ endUserProxy: true });
    for (const path of [`/v2/end-user/proxy/${mine}`, `/v2/end-user/proxy/${mine}/`]) {
      const answer = await send(gw, 'GET', path, { auth: token });
      expect(answer.status, path).to.equal(200);
      expect(answer.body, path).to.deep.equal({ root: true });
    }
  });

  it("answers 404 for another end user's connection and for the company's own, as for a missing one; nothing sent", async () => {
    await embedding({ endUserProxy: true });
    for (const id of [theirs, company, 'con_missing']) {
      const answer = await send(gw, 'GET', `/v2/end-user/proxy/${id}/me`, { auth: token });
      expect(answer.status, id).to.equal(404);
      expect(answer.body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${id} does not exist` });
    }
    expect(upstream.received).to.deep.equal([]);
  });

  it('answers 403 APP_NOT_ENABLED for an app the company did not enable for end users', async () => {
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [PAGE], enabledApps: [], endUserProxy: true } });
    const answer = await send(gw, 'GET', `/v2/end-user/proxy/${mine}/me`, { auth: token });
    expect(answer.status).to.equal(403);
    expect(answer.body.error.code).to.equal('APP_NOT_ENABLED');
  });

  it('refuses the API key on the end-user path and the end-user token on the API-key path (401)', async () => {
    await embedding({ endUserProxy: true });
    expect((await send(gw, 'GET', `/v2/end-user/proxy/${mine}/me`)).status).to.equal(401);
    expect((await send(gw, 'GET', `/v2/proxy/${mine}/me`, { auth: token })).status).to.equal(401);
  });

  it("CORS as the other end-user routes: the preflight from an allowed origin lets the page send the headers it asks for; the answer lets it read the app's headers", async () => {
    await embedding({ endUserProxy: true });
    upstream.on('PUT /files/v1/notes/1', (req) => ({ headers: { etag: '"n2"', 'x-ratelimit-remaining': '9' }, body: { got: req.headers['if-match'] } }));
    const preflight = await send(gw, 'OPTIONS', `/v2/end-user/proxy/${mine}/notes/1`, {
      auth: null,
      headers: { origin: PAGE, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type, if-match, x-proxy-retry' },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers['access-control-allow-origin']).to.equal(PAGE);
    expect(preflight.headers['access-control-allow-methods']).to.equal('GET, HEAD, POST, PUT, PATCH, DELETE');
    expect(String(preflight.headers['access-control-allow-headers']).split(/,\s*/)).to.include.members(['if-match', 'x-proxy-retry', 'Authorization']);
    const answer = await send(gw, 'PUT', `/v2/end-user/proxy/${mine}/notes/1`, { auth: token, headers: { origin: PAGE, 'if-match': '"n1"', 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ got: '"n1"' });
    expect(answer.headers['access-control-allow-origin']).to.equal(PAGE);
    expect(String(answer.headers['access-control-expose-headers']).split(/,\s*/)).to.include.members(['etag', 'x-ratelimit-remaining', 'proxy-status']);
  });

  it('refuses a page on an origin the company does not allow (403), and opens the API-key proxy to no browser', async () => {
    await embedding({ endUserProxy: true });
    const elsewhere = await send(gw, 'GET', `/v2/end-user/proxy/${mine}/me`, { auth: token, headers: { origin: 'https://evil.example' } });
    expect(elsewhere.status).to.equal(403);
    const preflight = await send(gw, 'OPTIONS', `/v2/proxy/${mine}/me`, { auth: null, headers: { origin: PAGE, 'access-control-request-method': 'GET' } });
    expect(preflight.status).to.equal(403);
    expect(preflight.headers['access-control-allow-origin']).to.equal(undefined);
    expect(upstream.received).to.deep.equal([]);
  });
});
