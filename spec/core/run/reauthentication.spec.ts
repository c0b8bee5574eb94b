import { expect } from 'chai';
import path from 'node:path';
import { verifyExchangeSignature } from '../../../engine/core/auth/exchange-signature.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');

describe('runs that need new credentials: OAuth 2.0 refresh and credential exchange', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  const run = (connectionId: string) => call(gw, 'POST', '/v2/universal/apps/crm/actions/list-contacts/run', { body: { connectionId } });
  const connect = async (credentials: Record<string, string>) =>
    (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'crm', credentials } })).body.data.id as string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: 'crm-secret' } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  /** The CRM accepts only `Bearer fresh-<n>` tokens its token endpoint issued. */
  function crmAccepting(): void {
    upstream.on('GET /crm/contacts', (req) =>
      /^Bearer fresh-\d+$/.test(String(req.headers.authorization)) ? { body: { contacts: [{ id: 'c1' }] } } : { status: 401, body: { error: 'token expired' } },
    );
  }

  function tokenEndpoint(options: { delayMs?: number; refuse?: boolean } = {}): void {
    let issued = 0;
    upstream.on('POST /oauth/token', (req) => {
      const form = new URLSearchParams(req.body);
      if (options.refuse || form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== 'rt-1') {
        return { status: 400, body: { error: 'invalid_grant' }, ...(options.delayMs ? { delayMs: options.delayMs } : {}) };
      }
      return { body: { access_token: `fresh-${++issued}`, expires_in: 3600 }, ...(options.delayMs ? { delayMs: options.delayMs } : {}) };
    });
  }

  it('on a 401, refreshes the token once, re-runs, and keeps the new token for the next run', async () => {
    crmAccepting();
    tokenEndpoint();
    const connectionId = await connect({ accessToken: 'stale', refreshToken: 'rt-1' });
    const { status, body } = await run(connectionId);
    expect(status).to.equal(200);
    expect(body).to.deep.include({ success: true, data: [{ id: 'c1' }] });
    const [refresh] = upstream.calls('POST /oauth/token');
    const form = new URLSearchParams(refresh!.body);
    expect(Object.fromEntries(form)).to.deep.equal({ grant_type: 'refresh_token', refresh_token: 'rt-1', client_id: 'crm-client', client_secret: 'crm-secret' });
    expect(upstream.calls('GET /crm/contacts').map((r) => r.headers.authorization)).to.deep.equal(['Bearer stale', 'Bearer fresh-1']);

    await run(connectionId);
    expect(upstream.calls('POST /oauth/token')).to.have.length(1);
    expect(upstream.calls('GET /crm/contacts').at(-1)!.headers.authorization).to.equal('Bearer fresh-1');
    const stored = await gw.gateway.services.store.connections.findOne({ id: connectionId });
    expect(stored!.credentialsVersion).to.equal(2);
    expect(JSON.stringify(stored)).not.to.include('fresh-1');
  });

  it('answers 404 for a connection deleted while its token was being renewed, not that its grant was lost', async () => {
    crmAccepting();
    tokenEndpoint({ delayMs: 500 });
    const connectionId = await connect({ accessToken: 'stale', refreshToken: 'rt-1' });
    const running = run(connectionId);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await call(gw, 'DELETE', `/v2/connections/${connectionId}`)).status).to.equal(200);
    const { status, body } = await running;
    expect(status).to.equal(404);
    expect(body.error).to.deep.equal({ code: 'NOT_FOUND', message: `connection ${connectionId} does not exist` });
  });

  it('renews an expired token once for 50 concurrent runs', async () => {
    crmAccepting();
    tokenEndpoint({ delayMs: 150 });
    const connectionId = await connect({ accessToken: 'old', refreshToken: 'rt-1', expiresAt: '2020-01-01T00:00:00Z' });
    const answers = await Promise.all(Array.from({ length: 50 }, () => run(connectionId)));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(200));
    expect(answers.every((a) => a.body.success === true)).to.equal(true);
    expect(upstream.calls('POST /oauth/token')).to.have.length(1);
    expect(new Set(upstream.calls('GET /crm/contacts').map((r) => r.headers.authorization))).to.deep.equal(new Set(['Bearer fresh-1']));
  });

  it('takes the token already stored by an earlier renewal instead of refreshing again', async () => {
    crmAccepting();
    tokenEndpoint();
    const connectionId = await connect({ accessToken: 'stale', refreshToken: 'rt-1' });
    const { store, keyring } = gw.gateway.services;
    const { renewToken } = await import('../../../engine/core/auth/token-renewal.ts');
    const version = gw.gateway.services.definitions.current().appsBySlug.get('crm')!.versions.get(1)!;
    const seen = (await store.connections.findOne({ id: connectionId }))!;
    const first = await renewToken(gw.gateway.services.run, seen, version.auths.get('oauth2')!);
    // A second renewal that started from the same, now stale, record takes the stored one.
    const second = await renewToken(gw.gateway.services.run, seen, version.auths.get('oauth2')!);
    expect(second.credentialsVersion).to.equal(first.credentialsVersion);
    expect(upstream.calls('POST /oauth/token')).to.have.length(1);
    const { open } = await import('../../../engine/platform/crypto/cipher.ts');
    expect(open<{ accessToken: string }>(keyring, connectionId, second.credentials).accessToken).to.equal('fresh-1');
  });

  it('marks the connection for re-authorization when the refresh fails (AUTH_REFRESH_FAILED), then refuses runs', async () => {
    crmAccepting();
    tokenEndpoint({ refuse: true });
    const connectionId = await connect({ accessToken: 'stale', refreshToken: 'rt-revoked' });
    const failed = await run(connectionId);
    expect(failed.status).to.equal(409);
    expect(failed.body.error.code).to.equal('AUTH_REFRESH_FAILED');
    expect(failed.body.error.message).to.include(connectionId);
    expect(failed.body.error.message).to.include('invalid_grant');
    expect((await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data.status).to.equal('needs_reauthorization');
    const next = await run(connectionId);
    expect(next.status).to.equal(409);
    expect(next.body.error.code).to.equal('CONNECTION_NEEDS_REAUTHORIZATION');
    expect(upstream.calls('GET /crm/contacts')).to.have.length(1);
  });

  it('exchanges credentials with the customer (signed request, metadata as host variables) and uses them', async () => {
    const secret = 'exchange-shared-secret-123';
    await call(gw, 'PUT', '/v2/apps/partner/configuration', { body: { exchangeSecret: secret } });
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'partner-user', metadata: { tenant: 't-42' } } })).body.data.userId;
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'partner' } })).body.data.id;
    const installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'partner', connectionId }] } })).body.data.id;
    let verified = false;
    upstream.on('POST /exchange', (req) => {
      verified = verifyExchangeSignature(secret, {
        method: req.method,
        target: req.path,
        body: req.body,
        timestamp: req.headers['x-timestamp'] as string,
        nonce: req.headers['x-nonce'] as string,
        signature: req.headers['x-signature'] as string,
      });
      if (!verified) return { status: 401, body: { error: 'bad signature' } };
      return { body: { token: 'partner-token', expiresIn: 300 } };
    });
    upstream.on('GET /partner/me', (req) => (req.headers.authorization === 'Bearer partner-token' ? { body: { id: 'me' } } : { status: 401, body: {} }));
    const { status, body } = await call(gw, 'POST', '/v2/universal/apps/partner/actions/whoami/run', { body: { installationId } });
    expect(status).to.equal(200);
    expect(body).to.deep.include({ success: true, data: [{ id: 'me' }] });
    expect(verified).to.equal(true);
    const [exchange] = upstream.calls('POST /exchange');
    expect(JSON.parse(exchange!.body)).to.deep.equal({ tenant: 't-42', integrationId: 'partner', installationId, endUserId });
    // The token is reused while it lasts.
    await call(gw, 'POST', '/v2/universal/apps/partner/actions/whoami/run', { body: { installationId } });
    expect(upstream.calls('POST /exchange')).to.have.length(1);
  });

  it('obtains a client-credentials token on first use, and reuses it until it expires', async () => {
    upstream.on('POST /machine/token', (req) => {
      const ok = req.headers.authorization === `Basic ${Buffer.from('m-client:m-secret').toString('base64')}` && new URLSearchParams(req.body).get('grant_type') === 'client_credentials';
      return ok ? { body: { access_token: 'machine-token', expires_in: 3600 } } : { status: 401, body: { error: 'invalid_client' } };
    });
    upstream.on('GET /machine/jobs', (req) => (req.headers.authorization === 'Bearer machine-token' ? { body: { jobs: [{ id: 'j1' }] } } : { status: 401, body: {} }));
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'machine', credentials: { clientId: 'm-client', clientSecret: 'm-secret' } } })).body.data.id;
    const runJobs = () => call(gw, 'POST', '/v2/universal/apps/machine/actions/list-jobs/run', { body: { connectionId } });
    expect((await runJobs()).body).to.deep.include({ success: true, data: [{ id: 'j1' }] });
    expect((await runJobs()).body.success).to.equal(true);
    expect(upstream.calls('POST /machine/token')).to.have.length(1);
    expect(new URLSearchParams(upstream.calls('POST /machine/token')[0]!.body).get('scope')).to.equal('jobs.read');
    expect((await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data.tokenExpiresAt).to.be.a('string');
  });

  it('explains a credential exchange that cannot happen: no shared secret (409), the customer endpoint failing (502)', async () => {
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'partner-user-2', metadata: { tenant: 't-1' } } })).body.data.userId;
    const { store } = gw.gateway.services;
    const companyId = (await store.companies.find({}))[0]!.id;
    await store.appConfigurations.deleteOne({ configKey: `${companyId}:partner` });
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'partner' } })).body.data.id;
    const installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'partner', connectionId }] } })).body.data.id;
    const runIt = () => call(gw, 'POST', '/v2/universal/apps/partner/actions/whoami/run', { body: { installationId } });

    await call(gw, 'PUT', '/v2/apps/partner/configuration', { body: { clientId: 'unused' } });
    const unconfigured = await runIt();
    expect(unconfigured.status).to.equal(409);
    expect(unconfigured.body.error).to.deep.equal({ code: 'APP_NOT_CONFIGURED', message: 'app "partner" has no exchangeSecret for your company: PUT /v2/apps/partner/configuration' });

    await call(gw, 'PUT', '/v2/apps/partner/configuration', { body: { exchangeSecret: 'exchange-shared-secret-456' } });
    upstream.on('POST /exchange', () => ({ status: 500, body: { error: 'down' } }));
    const failing = await runIt();
    expect(failing.status).to.equal(502);
    expect(failing.body.error.code).to.equal('CREDENTIAL_EXCHANGE_FAILED');
    expect(failing.body.error.message).to.match(/^the credential exchange at 127\.0\.0\.1:\d+ answered HTTP 500$/);
    upstream.on('POST /exchange', () => ({ body: { nothing: true } }));
    const tokenless = await runIt();
    expect(tokenless.body.error.message).to.match(/answered no accessToken$/);
    expect(upstream.calls('GET /partner/me')).to.have.length(0);
  });
});
