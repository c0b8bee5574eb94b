import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream, type ReceivedRequest } from '../../helpers/upstream.ts';
import { expectDocumentedIfDescribed } from '../../helpers/openapi.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const CLIENT_SECRET = 'company-client-secret/+ 9a8b7c';
const REFRESH_TOKEN = 'refresh-token-5d4c3b2a';
const MACHINE_SECRET = 'machine-secret-6e5f4a';
const CODE = 'authorization-code-77aa';

/** A token endpoint that echoes what it received into its error, as some do, with a long tail. */
function echoing(status: number) {
  return (req: ReceivedRequest) => ({
    status,
    body: {
      error: 'invalid_request',
      error_description: `could not process grant: ${req.body} (${req.headers.authorization ?? 'no authorization'}) decoded ${decodeURIComponent(req.body.replace(/\+/g, ' '))} ${'x'.repeat(2000)}`,
    },
  });
}

describe('secrets the gateway sent are never reflected back from a provider', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  const secrets = [CLIENT_SECRET, encodeURIComponent(CLIENT_SECRET), REFRESH_TOKEN, MACHINE_SECRET, CODE, Buffer.from(`m-client:${MACHINE_SECRET}`).toString('base64')];
  const expectNoSecret = (text: string) => {
    for (const secret of secrets) expect(text).not.to.include(secret);
  };

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', TOKEN_RETRY_DELAY_MS: '1' });
    // The OAuth returnUrl must be on an allowed origin.
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://customer.test'], enabledApps: [] } });
    await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: CLIENT_SECRET } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  it('a refresh: the message names the refusal with the client secret and refresh token redacted, cut short with an ellipsis', async () => {
    upstream.on('POST /oauth/token', echoing(400));
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'crm', credentials: { accessToken: 'old', refreshToken: REFRESH_TOKEN, expiresAt: '2020-01-01T00:00:00Z' } } }))
      .body.data.id;
    const answer = await call(gw, 'POST', '/v2/universal/apps/crm/actions/list-contacts/run', { body: { connectionId } });
    expect(answer.status).to.equal(502);
    expect(answer.body.error.code).to.equal('TOKEN_EXCHANGE_FAILED');
    expect(upstream.calls('POST /oauth/token')[0]!.body).to.include(REFRESH_TOKEN);
    const message: string = answer.body.error.message;
    expect(message).to.include('invalid_request: could not process grant: grant_type=refresh_token&refresh_token=[redacted]');
    expect(message).to.include('client_secret=[redacted]');
    expect(message).to.match(/…\); the connection stays active$/);
    expect(message.length).to.be.below(500);
    expectNoSecret(JSON.stringify(answer.body));
    expectNoSecret(gw.logs());
  });

  it('a refresh refused with a lost grant whose error code itself echoes a secret (AUTH_REFRESH_FAILED)', async () => {
    upstream.on('POST /oauth/token', () => ({ status: 503, body: { error: `unavailable for ${REFRESH_TOKEN}`, error_description: `secret ${CLIENT_SECRET}` } }));
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'crm', credentials: { accessToken: 'old', refreshToken: REFRESH_TOKEN, expiresAt: '2020-01-01T00:00:00Z' } } }))
      .body.data.id;
    const unavailable = await call(gw, 'POST', '/v2/universal/apps/crm/actions/list-contacts/run', { body: { connectionId } });
    expect(unavailable.body.error.code).to.equal('AUTH_PROVIDER_UNAVAILABLE');
    expect(unavailable.body.error.message).to.include('unavailable for [redacted]');
    expectNoSecret(JSON.stringify(unavailable.body));

    upstream.on('POST /oauth/token', (req) => ({ status: 400, body: { error: 'invalid_grant', error_description: `refresh token ${new URLSearchParams(req.body).get('refresh_token')} is revoked` } }));
    const refused = await call(gw, 'POST', '/v2/universal/apps/crm/actions/list-contacts/run', { body: { connectionId } });
    expect(refused.body.error.code).to.equal('AUTH_REFRESH_FAILED');
    expect(refused.body.error.message).to.include('invalid_grant: refresh token [redacted] is revoked');
    expectNoSecret(JSON.stringify(refused.body));
    expectNoSecret(gw.logs());
  });

  it('client credentials: the client secret (as sent in the Basic header, and decoded) is redacted', async () => {
    upstream.on('POST /machine/token', (req) => ({
      status: 400,
      body: { error: 'invalid_scope', error_description: `${req.headers.authorization} = m-client:${MACHINE_SECRET}` },
    }));
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'machine', credentials: { clientId: 'm-client', clientSecret: MACHINE_SECRET } } })).body.data.id;
    const answer = await call(gw, 'POST', '/v2/universal/apps/machine/actions/list-jobs/run', { body: { connectionId } });
    expect(answer.status).to.equal(502);
    expect(answer.body.error.message).to.include('invalid_scope: [redacted] = m-client:[redacted]');
    expectNoSecret(JSON.stringify(answer.body));
    expectNoSecret(gw.logs());
  });

  describe('the connect callback (what the end user’s browser sees)', () => {
    async function callbackWith(query: Record<string, string>): Promise<URL> {
      const authorize = await call(gw, 'GET', `/v2/connect/crm/authorize?returnUrl=${encodeURIComponent('https://customer.test/back')}`);
      const state = new URL(authorize.body.data.authorizationUrl).searchParams.get('state')!;
      const response = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ state, ...query })}`, { redirect: 'manual' });
      expect(response.status).to.equal(302);
      expectDocumentedIfDescribed('GET', '/v2/connect/callback', { status: response.status, body: await response.text() });
      return new URL(response.headers.get('location')!);
    }

    it('redacts the code and client secret an echoing token endpoint puts in its error, cut short', async () => {
      upstream.on('POST /oauth/token', echoing(400));
      const location = await callbackWith({ code: CODE });
      expect(upstream.calls('POST /oauth/token')[0]!.body).to.include(CODE);
      expect(location.origin + location.pathname).to.equal('https://customer.test/back');
      expect(location.searchParams.get('error')).to.equal('token_exchange_failed');
      const description = location.searchParams.get('error_description')!;
      expect(description).to.include('code=[redacted]');
      expect(description.endsWith('…')).to.equal(true);
      expect(description.length).to.be.below(400);
      expectNoSecret(location.href);
      expectNoSecret(decodeURIComponent(location.href));
      expectNoSecret(gw.logs());
    });

    it("cuts a provider's own long error_description short, with an ellipsis", async () => {
      const location = await callbackWith({ error: 'access_denied', error_description: `the user said no ${'y'.repeat(3000)}` });
      expect(location.searchParams.get('error')).to.equal('access_denied');
      const description = location.searchParams.get('error_description')!;
      expect(description.startsWith('the user said no yyy')).to.equal(true);
      expect(description.endsWith('…')).to.equal(true);
      expect(description.length).to.be.at.most(201);
    });
  });

  it('a credential exchange: what the gateway signed and sent is not reflected when the endpoint echoes it', async () => {
    const exchangeSecret = 'exchange-shared-secret-echo';
    await call(gw, 'PUT', '/v2/apps/partner/configuration', { body: { exchangeSecret } });
    let signature = '';
    upstream.on('POST /exchange', (req) => {
      signature = String(req.headers['x-signature']);
      return { status: 500, body: { error: `echo ${JSON.stringify(req.headers)} ${req.body}` } };
    });
    const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'echo-user', metadata: { tenant: 't-echo' } } })).body.data.userId;
    const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'partner' } })).body.data.id;
    const installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'partner', connectionId }] } })).body.data.id;
    const answer = await call(gw, 'POST', '/v2/universal/apps/partner/actions/whoami/run', { body: { installationId } });
    expect(answer.status).to.equal(502);
    expect(answer.body.error.code).to.equal('CREDENTIAL_EXCHANGE_FAILED');
    expect(signature).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(answer.body)).not.to.include(signature);
    expect(JSON.stringify(answer.body)).not.to.include(exchangeSecret);
    expect(gw.logs()).not.to.include(signature);
  });
});
