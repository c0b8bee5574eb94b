import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { expectDocumentedIfDescribed } from '../../helpers/openapi.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const SECRET = 'S3cr3t-value-0123456789';

/** One app per auth type that the fixture does not have, each with a GET /hop action. */
function extraApps(upstreamUrl: string): Record<string, string> {
  const app = (slug: string, auth: string) => ({
    [`${slug}/app.yaml`]: `id: ${slug}\nslug: ${slug}\nname: ${slug}\npublished: 1\n`,
    [`${slug}/versions/1/api.yaml`]: `baseUrl: ${upstreamUrl}/${slug}\nauths:\n  - auth\n`,
    [`${slug}/versions/1/auths/auth.yaml`]: `id: auth\nname: auth\n${auth}arguments:\n  - key: secret\n    dataType: String\n    required: true\n`,
    [`${slug}/versions/1/actions/hop.yaml`]: 'id: hop\nslug: hop\nname: Hop\noperation: get\nmethod: GET\npath: /hop\nresponse: \'{ "success": status = 200, "data": body }\'\n',
  });
  return {
    ...app('qkey', "type: ApiKey\nin: Query\nparameterName: api_key\nvalue: '{{secret}}'\n"),
    ...app('basic', "type: Basic\nusername: user\npassword: '{{secret}}'\n"),
    ...app('bearer', "type: Bearer\ntoken: '{{secret}}'\n"),
    ...app('cookie', "type: ApiKey\nin: Header\nparameterName: Cookie\nvalue: 'session={{secret}}'\n"),
  };
}

describe('redirects to another origin: credentials never follow', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  const other = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;

  before(async () => {
    await upstream.start();
    await other.start();
    const defs = await definitionsFor(FIXTURE, upstream.url, extraApps(upstream.url));
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', TOKEN_RETRY_DELAY_MS: '1' });
    // The OAuth returnUrl must be on an allowed origin.
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://customer.test'], enabledApps: [] } });
    await call(gw, 'PUT', '/v2/apps/crm/configuration', { body: { clientId: 'crm-client', clientSecret: SECRET } });
    await call(gw, 'PUT', '/v2/apps/partner/configuration', { body: { exchangeSecret: 'exchange-shared-secret-789' } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await other.stop();
    await cleanupDefs();
  });
  afterEach(() => {
    upstream.reset();
    other.reset();
  });

  /** Everything the other origin received, as one text to search for secrets. */
  const received = () => JSON.stringify(other.received.map((r) => ({ ...r, query: r.query.toString() })));
  /** Answers `route` with a 307 to the other origin, echoing the request's query in the Location as a careless app might. */
  const redirectAway = (route: string) =>
    upstream.on(route, (req) => ({ status: 307, headers: { location: `${other.url}/landing?keep=1${req.query.size ? `&${req.query}` : ''}` } }));
  const landed = () => {
    other.on('GET /landing', () => ({ body: { landed: true } }));
    other.on('POST /landing', () => ({ body: { access_token: 'stolen', expires_in: 60 } }));
  };

  describe('token and credential-exchange calls follow no redirect to another origin', () => {
    it('a client-credentials token call: 502 TOKEN_EXCHANGE_FAILED naming the endpoint; the other origin gets nothing', async () => {
      landed();
      redirectAway('POST /machine/token');
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'machine', credentials: { clientId: 'm-client', clientSecret: SECRET } } })).body.data.id;
      const answer = await call(gw, 'POST', '/v2/universal/apps/machine/actions/list-jobs/run', { body: { connectionId } });
      expect(answer.status).to.equal(502);
      expect(answer.body.error.code).to.equal('TOKEN_EXCHANGE_FAILED');
      expect(answer.body.error.message).to.match(/the token endpoint 127\.0\.0\.1:\d+ redirected to another origin \(http:\/\/127\.0\.0\.1:\d+\); the redirect was not followed/);
      expect(JSON.stringify(answer.body)).not.to.include(SECRET);
      expect(other.received).to.have.length(0);
      expect((await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data.status).to.equal('active');
    });

    it('a refresh: 502 TOKEN_EXCHANGE_FAILED; the other origin gets neither the refresh token nor the client secret', async () => {
      landed();
      redirectAway('POST /oauth/token');
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'crm', credentials: { accessToken: 'old', refreshToken: `rt-${SECRET}`, expiresAt: '2020-01-01T00:00:00Z' } } })).body
        .data.id;
      const answer = await call(gw, 'POST', '/v2/universal/apps/crm/actions/list-contacts/run', { body: { connectionId } });
      expect(answer.status).to.equal(502);
      expect(answer.body.error.code).to.equal('TOKEN_EXCHANGE_FAILED');
      expect(answer.body.error.message).to.include('redirected to another origin');
      expect(other.received).to.have.length(0);
    });

    it('the connect callback: the code exchange is not re-posted to another origin', async () => {
      landed();
      redirectAway('POST /oauth/token');
      const authorize = await call(gw, 'GET', `/v2/connect/crm/authorize?returnUrl=${encodeURIComponent('https://customer.test/back')}`);
      const state = new URL(authorize.body.data.authorizationUrl).searchParams.get('state')!;
      const response = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ state, code: `code-${SECRET}` })}`, { redirect: 'manual' });
      expectDocumentedIfDescribed('GET', '/v2/connect/callback', { status: response.status, body: await response.text() });
      const location = new URL(response.headers.get('location')!);
      expect(location.searchParams.get('error')).to.equal('token_exchange_failed');
      expect(location.searchParams.get('error_description')).to.include('redirected to another origin');
      expect(other.received).to.have.length(0);
    });

    it('a credential exchange: 502 CREDENTIAL_EXCHANGE_FAILED; no signature, timestamp or body re-sent to the other origin', async () => {
      landed();
      redirectAway('POST /exchange');
      const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'redirected-user', metadata: { tenant: 't-7' } } })).body.data.userId;
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'partner' } })).body.data.id;
      const installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'partner', connectionId }] } })).body.data.id;
      const answer = await call(gw, 'POST', '/v2/universal/apps/partner/actions/whoami/run', { body: { installationId } });
      expect(answer.status).to.equal(502);
      expect(answer.body.error.code).to.equal('CREDENTIAL_EXCHANGE_FAILED');
      expect(answer.body.error.message).to.match(/the credential exchange at 127\.0\.0\.1:\d+ redirected to another origin \(http:\/\/127\.0\.0\.1:\d+\); the redirect was not followed/);
      expect(other.received).to.have.length(0);
    });

    it('still follows a redirect within the same origin', async () => {
      upstream.on('POST /machine/token', () => ({ status: 307, headers: { location: '/machine/token2' } }));
      upstream.on('POST /machine/token2', (req) =>
        req.headers.authorization === `Basic ${Buffer.from(`m-client:${SECRET}`).toString('base64')}` ? { body: { access_token: 'machine-token', expires_in: 3600 } } : { status: 401, body: {} },
      );
      upstream.on('GET /machine/jobs', (req) => (req.headers.authorization === 'Bearer machine-token' ? { body: { jobs: [] } } : { status: 401, body: {} }));
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'machine', credentials: { clientId: 'm-client', clientSecret: SECRET } } })).body.data.id;
      const answer = await call(gw, 'POST', '/v2/universal/apps/machine/actions/list-jobs/run', { body: { connectionId } });
      expect(answer.status).to.equal(200);
      expect(answer.body.success).to.equal(true);
    });
  });

  describe('an app call that hops to another origin drops every credential', () => {
    async function runHop(appSlug: string, credentials: Record<string, string>, action = 'hop'): Promise<void> {
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug, credentials } })).body.data.id;
      const answer = await call(gw, 'POST', `/v2/universal/apps/${appSlug}/actions/${action}/run`, { body: { connectionId } });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    }
    const expectClean = () => {
      expect(other.received).to.have.length(1);
      const [hop] = other.received;
      expect(hop!.query.get('keep')).to.equal('1');
      expect(hop!.headers.authorization).to.equal(undefined);
      expect(hop!.headers.cookie).to.equal(undefined);
      expect(received()).not.to.include(SECRET);
    };

    it('an API key in a header', async () => {
      landed();
      redirectAway('GET /api/orders');
      await runHop('shop', { apiKey: SECRET }, 'list-orders');
      expectClean();
      expect(other.received[0]!.headers['x-api-key']).to.equal(undefined);
      expect(upstream.calls('GET /api/orders')[0]!.headers['x-api-key']).to.equal(SECRET);
    });

    it('an API key in the query (also when the app echoes it into the Location)', async () => {
      landed();
      redirectAway('GET /qkey/hop');
      await runHop('qkey', { secret: SECRET });
      expectClean();
      expect(other.received[0]!.query.has('api_key')).to.equal(false);
      expect(upstream.calls('GET /qkey/hop')[0]!.query.get('api_key')).to.equal(SECRET);
    });

    it('basic', async () => {
      landed();
      redirectAway('GET /basic/hop');
      await runHop('basic', { secret: SECRET });
      expectClean();
    });

    it('bearer', async () => {
      landed();
      redirectAway('GET /bearer/hop');
      await runHop('bearer', { secret: SECRET });
      expectClean();
    });

    it('a cookie', async () => {
      landed();
      redirectAway('GET /cookie/hop');
      await runHop('cookie', { secret: SECRET });
      expectClean();
      expect(upstream.calls('GET /cookie/hop')[0]!.headers.cookie).to.equal(`session=${SECRET}`);
    });

    it('an OAuth 2.0 access token', async () => {
      landed();
      redirectAway('GET /crm/contacts');
      await runHop('crm', { accessToken: `at-${SECRET}` }, 'list-contacts');
      expectClean();
    });

    it('a client-credentials token', async () => {
      landed();
      upstream.on('POST /machine/token', () => ({ body: { access_token: `machine-${SECRET}`, expires_in: 3600 } }));
      redirectAway('GET /machine/jobs');
      await runHop('machine', { clientId: 'm-client', clientSecret: SECRET }, 'list-jobs');
      expectClean();
    });

    it('exchanged credentials', async () => {
      landed();
      upstream.on('POST /exchange', () => ({ body: { token: `exchanged-${SECRET}`, expiresIn: 300 } }));
      redirectAway('GET /partner/me');
      const endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'hop-user', metadata: { tenant: 't-8' } } })).body.data.userId;
      const connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'partner' } })).body.data.id;
      const installationId = (await call(gw, 'POST', '/v2/installations', { body: { endUserId, apps: [{ appSlug: 'partner', connectionId }] } })).body.data.id;
      const answer = await call(gw, 'POST', '/v2/universal/apps/partner/actions/whoami/run', { body: { installationId } });
      expect(answer.status).to.equal(200);
      expectClean();
      expect(upstream.calls('GET /partner/me')[0]!.headers.authorization).to.equal(`Bearer exchanged-${SECRET}`);
    });
  });
});
