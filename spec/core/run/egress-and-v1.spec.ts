import { expect } from 'chai';
import path from 'node:path';
import { SignJWT } from 'jose';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');

/** One tiny app per refused destination: its base URL is the address under test. */
function egressApp(slug: string, baseUrl: string): Record<string, string> {
  return {
    [`${slug}/app.yaml`]: `id: ${slug}\nslug: ${slug}\nname: ${slug}\npublished: 1\n`,
    [`${slug}/versions/1/api.yaml`]: `baseUrl: ${baseUrl}\nauths:\n  - token\n`,
    [`${slug}/versions/1/auths/token.yaml`]: `type: Bearer\nid: token\ntoken: fixed\n`,
    [`${slug}/versions/1/actions/ping.yaml`]: `id: ping\nslug: ping\nname: Ping\noperation: get\nmethod: GET\npath: /ping\n`,
  };
}

const DENIED: [string, string, RegExp][] = [
  ['loopback', 'http://127.0.0.1:9', /127\.0\.0\.1/],
  ['private', 'http://10.0.0.1', /10\.0\.0\.1/],
  ['metadata', 'http://169.254.169.254', /169\.254\.169\.254/],
  ['mapped', 'http://[::ffff:127.0.0.1]:9', /::ffff:127\.0\.0\.1|127\.0\.0\.1/],
];

describe('egress: a run never reaches internal addresses', () => {
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  before(async () => {
    const extra = Object.assign({}, ...DENIED.map(([slug, url]) => egressApp(slug, url)));
    const defs = await definitionsFor(FIXTURE, 'http://127.0.0.1:9', extra);
    cleanup = defs.cleanup;
    // No EGRESS_ALLOW: the default policy.
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir });
  });
  after(async () => {
    await gw.stop();
    await cleanup();
  });

  for (const [slug, , address] of DENIED) {
    it(`refuses ${slug} with EGRESS_DENIED (403)`, async () => {
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: slug } })).body.data.id;
      const { status, body } = await call(gw, 'POST', `/v2/universal/apps/${slug}/actions/ping/run`, { body: { connectionId } });
      expect(status).to.equal(403);
      expect(body.success).to.equal(false);
      expect(body.error.code).to.equal('EGRESS_DENIED');
      expect(body.error.message).to.match(address);
    });
  }
});

describe('POST /v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run (end-user token)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let endUserId: string;
  let installationId: string;
  let token: string;
  const runV1 = (version: string, body: unknown, bearer = token) =>
    call({ url: gw.url, apiKey: bearer }, 'POST', `/v1/installation/apps/shop/${version}/action/list-orders/run`, { body });

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'embedded-1' } })).body.data.userId;
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', endUserId, credentials: { apiKey: 'k' } } })).body.data.id;
    installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'shop', connectionId }] } })).body.data.id;
    token = (await call(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => {
    upstream.reset();
    upstream.on('GET /api/orders', () => ({ body: { result: { orders: [{ id: 'v1' }] } } }));
  });

  it('runs the action with the installation\'s credentials and answers the envelope', async () => {
    const { status, body } = await runV1('published', { installationId, actionArguments: { status: 'paid' } });
    expect(status).to.equal(200);
    expect(body).to.deep.include({ success: true, data: [{ id: 'v1' }] });
    expect(upstream.calls('GET /api/orders')[0]!.query.get('status')).to.equal('paid');
    expect((await runV1('1', { installationId })).body.success).to.equal(true);
  });

  it('refuses an expired, tampered or missing token, and an API key (401)', async () => {
    const [h, p, s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'eu_other' })).toString('base64url')}.${s}`;
    const { keyring, store } = gw.gateway.services;
    const { keyRingFor } = await import('../../../engine/tenancy/end-user-tokens/key-ring.ts');
    const { kid, key } = await keyRingFor(store, keyring).signingKey();
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const expired = await new SignJWT({ ...claims, iat: claims.iat - 3600, exp: claims.iat - 1800 }).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid }).sign(key);
    for (const bearer of [tampered, expired, 'not-a-token', gw.apiKey]) {
      const { status, body } = await runV1('published', { installationId }, bearer);
      expect(status).to.equal(401);
      expect(body.error.code).to.equal('UNAUTHORIZED');
    }
    expect(upstream.received).to.have.length(0);
  });

  it("treats another end user's installation as missing (404)", async () => {
    const otherUser = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'embedded-2' } })).body.data.userId;
    const otherToken = (await call(gw, 'GET', `/v1/users/${otherUser}/token`)).body.token;
    const { status, body } = await runV1('published', { installationId }, otherToken);
    expect(status).to.equal(404);
    expect(body.error).to.deep.equal({ code: 'NOT_FOUND', message: `installation ${installationId} does not exist` });
  });

  it('runs draft only for test end users (403 otherwise), and validates the body', async () => {
    const draft = await runV1('draft', { installationId });
    expect(draft.status).to.equal(403);
    expect(draft.body.error).to.deep.equal({ code: 'FORBIDDEN', message: 'draft versions run only for test end users (isTestUser: true); use published or a version number' });
    const tester = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'tester', isTestUser: true } })).body.data.userId;
    const testerConnection = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'shop', credentials: { apiKey: 'k' } } })).body.data.id;
    const testerInstallation = (await call(gw, 'POST', '/v2/installations', { body: { endUserId: tester, apps: [{ appSlug: 'shop', connectionId: testerConnection }] } })).body.data.id;
    const testerToken = (await call(gw, 'GET', `/v1/users/${tester}/token`)).body.token;
    const asTester = await runV1('draft', { installationId: testerInstallation }, testerToken);
    expect(asTester.status).to.equal(200);
    expect(asTester.body.success).to.equal(true);
    const missing = await runV1('published', { actionArguments: {} });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.message).to.include('installationId: is required');
    const unknownVersion = await runV1('7', { installationId });
    expect(unknownVersion.body.error.code).to.equal('APP_VERSION_NOT_FOUND');
  });
});
