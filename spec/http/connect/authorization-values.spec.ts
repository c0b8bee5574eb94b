import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/oauth-providers');
const PUBLIC = 'https://gateway.example.test';
const RETURN = `${PUBLIC}/connect/oauth-return`;
const DEMO = { id: '5a1c2b3d-0000-4000-8000-000000000001', tenantId: '45e4708e-d862-4111-ab3a-dd8cd03913e1', tenantType: 'ORGANISATION', tenantName: 'Demo Company (UK)' };
const MAPLE = { id: '5a1c2b3d-0000-4000-8000-000000000002', tenantId: '7c1bd4b2-3bb6-4c4f-a1a6-2f1e0d9c8b7a', tenantType: 'ORGANISATION', tenantName: 'Maple Florists Ltd' };
const PRACTICE = { id: '5a1c2b3d-0000-4000-8000-000000000003', tenantId: '0b9a8c7d-0000-4000-8000-00000000000f', tenantType: 'PRACTICE', tenantName: 'Practice Manager' };

/**
 * Values a provider gives when a connection is authorized, kept on the
 * connection: a query parameter of the redirect to the callback (QuickBooks'
 * realmId), and the accounts a request after the token names (Xero's GET
 * /connections), one of them chosen by the end user or the first by rule.
 * Through the real gateway, with the provider a local upstream.
 */
describe('OAuth 2.0: values the provider gives at authorization (callbackMetadata, postAuthorization)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let endUserId: string;
  let endUserToken: string;
  let otherEndUserToken: string;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', PUBLIC_BASE_URL: PUBLIC });
    for (const app of ['books', 'tenants']) await call(gw, 'PUT', `/v2/apps/${app}/configuration`, { body: { clientId: `${app}-client`, clientSecret: `${app}-secret` } });
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [], enabledApps: ['books', 'tenants'] } });
    endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    const other = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'bob' } })).body.data.userId;
    endUserToken = (await call(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token;
    otherEndUserToken = (await call(gw, 'GET', `/v1/users/${other}/token`)).body.token;
  });
  after(async () => {
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs?.();
  });
  afterEach(() => upstream.reset());

  const asEndUser = (token: string) => ({ url: gw.url, apiKey: token });

  /** Authorize (as the end user), then the provider's redirect back with `extra` query parameters: the outcome the return URL gets. */
  async function authorizeAndReturn(app: string, extra: Record<string, string> = {}, query = ''): Promise<URLSearchParams> {
    const started = await call(asEndUser(endUserToken), 'GET', `/v2/connect/${app}/authorize?returnUrl=${encodeURIComponent(RETURN)}${query}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const state = new URL(started.body.data.authorizationUrl).searchParams.get('state')!;
    const back = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ code: 'code-1', state, ...extra })}`, { redirect: 'manual' });
    expect(back.status).to.equal(302);
    return new URL(back.headers.get('location')!).searchParams;
  }

  /** The end user's session confirms what its authorization got (a choice of one, `confirm`): the connection made. */
  async function confirmed(outcome: URLSearchParams): Promise<string> {
    const choiceId = outcome.get('choiceId');
    expect(choiceId, outcome.toString()).to.match(/^cho_/);
    const shown = await call(asEndUser(endUserToken), 'GET', `/v2/connect/choices/${choiceId}`);
    expect(shown.body.data, JSON.stringify(shown.body)).to.include({ confirm: true });
    const made = await call(asEndUser(endUserToken), 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    return made.body.data.connectionId;
  }

  function tokenEndpoint(route: string): void {
    let issued = 0;
    upstream.on(route, () => ({ body: { access_token: `at-${++issued}`, refresh_token: `rt-${issued}`, expires_in: 1800, token_type: 'Bearer' } }));
  }

  describe("a callback query parameter (QuickBooks' realmId)", () => {
    it('is not asked before the redirect, is kept from the callback, and fills the base URL of every run', async () => {
      tokenEndpoint('POST /oauth2/v1/tokens/bearer');
      upstream.on('GET /v3/company/9130357766900456/preferences', () => ({ body: { Preferences: { Id: '1' } } }));
      // realmId is a required API argument: the authorization gives it, so authorize does not ask for it.
      const connectionId = await confirmed(await authorizeAndReturn('books', { realmId: '9130357766900456' }));
      expect(connectionId).to.match(/^con_/);
      const connection = await call(gw, 'GET', `/v2/connections/${connectionId}`);
      expect(connection.body.data.metadata).to.deep.equal({ realmId: '9130357766900456' });
      const run = await call(asEndUser(endUserToken), 'POST', '/v2/end-user/apps/books/actions/get-preferences/run', { body: { connectionId } });
      expect(run.status, JSON.stringify(run.body)).to.equal(200);
      expect(run.body.data).to.deep.equal([{ Id: '1' }]);
      expect(upstream.calls('GET /v3/company/9130357766900456/preferences')[0]!.query.get('minorversion')).to.equal('75');
    });

    it('keeps nothing the redirect lacks: every run then says which value is missing', async () => {
      tokenEndpoint('POST /oauth2/v1/tokens/bearer');
      const connectionId = await confirmed(await authorizeAndReturn('books'));
      const run = await call(asEndUser(endUserToken), 'POST', '/v2/end-user/apps/books/actions/get-preferences/run', { body: { connectionId } });
      expect(run.status).to.equal(400);
      expect(run.body.error.message).to.match(/^connection\.realmId: /);
    });
  });

  describe("a post-authorization request (Xero's GET /connections)", () => {
    function connections(tenants: object[]): void {
      upstream.on('GET /connections', (req) => (req.headers.authorization === 'Bearer at-1' ? { body: tenants } : { status: 401, body: { Title: 'Unauthorized', Detail: 'TokenInvalid' } }));
    }

    it('with one organisation, keeps its tenantId and tenantName, and every run sends them', async () => {
      tokenEndpoint('POST /connect/token');
      connections([DEMO, PRACTICE]);
      upstream.on('GET /api.xro/2.0/Invoices', () => ({ body: { Invoices: [{ InvoiceID: 'i-1' }] } }));
      const outcome = await authorizeAndReturn('tenants');
      const shown = await call(asEndUser(endUserToken), 'GET', `/v2/connect/choices/${outcome.get('choiceId')}`);
      expect(shown.body.data.options, 'the one account, to confirm').to.deep.equal([{ id: '1', label: DEMO.tenantName, metadata: {} }]);
      const connectionId = await confirmed(outcome);
      const connection = await call(gw, 'GET', `/v2/connections/${connectionId}`);
      expect(connection.body.data.metadata).to.deep.equal({ tenantId: DEMO.tenantId, tenantName: DEMO.tenantName });
      expect(connection.body.data.accountLabel, "the account's label is the connection's").to.equal(DEMO.tenantName);
      const [asked] = upstream.calls('GET /connections');
      expect(asked!.headers.accept).to.equal('application/json');
      const run = await call(gw, 'POST', '/v2/universal/apps/tenants/actions/list-invoices/run', { body: { connectionId } });
      expect(run.body.data).to.deep.equal([{ InvoiceID: 'i-1' }]);
      expect(upstream.calls('GET /api.xro/2.0/Invoices')[0]!.headers['xero-tenant-id']).to.equal(DEMO.tenantId);
    });

    it('with several, hands a choice to the return URL; the end user picks one, once, and only their own', async () => {
      tokenEndpoint('POST /connect/token');
      connections([DEMO, MAPLE, PRACTICE]);
      const outcome = await authorizeAndReturn('tenants');
      expect(outcome.has('connectionId')).to.equal(false);
      const choiceId = outcome.get('choiceId')!;
      expect(choiceId).to.match(/^cho_/);

      const shown = await call(asEndUser(endUserToken), 'GET', `/v2/connect/choices/${choiceId}`);
      expect(shown.status).to.equal(200);
      expect(shown.body.data).to.deep.include({ id: choiceId, appSlug: 'tenants', authId: 'oauth2', endUserId, connectionId: null, confirm: false });
      expect(shown.body.data.options).to.deep.equal([
        { id: '1', label: DEMO.tenantName, metadata: { tenantId: DEMO.tenantId, tenantName: DEMO.tenantName } },
        { id: '2', label: MAPLE.tenantName, metadata: { tenantId: MAPLE.tenantId, tenantName: MAPLE.tenantName } },
      ]);
      expect(JSON.stringify(shown.body)).not.to.match(/at-1|rt-1/);
      // Another end user's session does not see it; the company's API key does.
      expect((await call(asEndUser(otherEndUserToken), 'GET', `/v2/connect/choices/${choiceId}`)).status).to.equal(404);
      expect((await call(gw, 'GET', `/v2/connect/choices/${choiceId}`)).status).to.equal(200);

      const wrong = await call(asEndUser(endUserToken), 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '3' } });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.error.message).to.equal('optionId: must be the id of one of the 2 options of this choice (1 to 2)');
      const made = await call(asEndUser(endUserToken), 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '2' } });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      expect(made.body.data.created).to.equal(true);
      const connection = await call(gw, 'GET', `/v2/connections/${made.body.data.connectionId}`);
      expect(connection.body.data).to.deep.include({ endUserId, status: 'active', accountLabel: MAPLE.tenantName, metadata: { tenantId: MAPLE.tenantId, tenantName: MAPLE.tenantName } });
      const again = await call(asEndUser(endUserToken), 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
      expect(again.status).to.equal(404);
      expect(gw.logs()).not.to.match(/at-1|rt-1/);
    });

    it('a reconnect keeps the organisation the connection has, without asking again', async () => {
      tokenEndpoint('POST /connect/token');
      connections([DEMO, MAPLE]);
      const choiceId = (await authorizeAndReturn('tenants')).get('choiceId')!;
      const connectionId = (await call(asEndUser(endUserToken), 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '2' } })).body.data.connectionId;
      upstream.reset();
      tokenEndpoint('POST /connect/token');
      connections([DEMO, MAPLE]);
      const again = await call(asEndUser(endUserToken), 'GET', `/v2/end-user/connections/${connectionId}/reauthorize?returnUrl=${encodeURIComponent(RETURN)}`);
      expect(again.status, JSON.stringify(again.body)).to.equal(200);
      const state = new URL(again.body.data.authorizationUrl).searchParams.get('state')!;
      const back = await fetch(`${gw.url}/v2/connect/callback?code=code-2&state=${encodeURIComponent(state)}`, { redirect: 'manual' });
      expect(await confirmed(new URL(back.headers.get('location')!).searchParams)).to.equal(connectionId);
      const connection = await call(gw, 'GET', `/v2/connections/${connectionId}`);
      expect(connection.body.data.metadata).to.deep.equal({ tenantId: MAPLE.tenantId, tenantName: MAPLE.tenantName });
    });

    it('takes the first by rule (choice: First)', async () => {
      tokenEndpoint('POST /connect/token');
      connections([MAPLE, DEMO]);
      const connectionId = await confirmed(await authorizeAndReturn('tenants', {}, '&authId=oauth2-first'));
      const connection = await call(gw, 'GET', `/v2/connections/${connectionId}`);
      expect(connection.body.data.metadata).to.deep.equal({ tenantId: MAPLE.tenantId, tenantName: MAPLE.tenantName });
    });

    it('fails the authorization, naming the request and never the token, when the request is refused or names no account', async () => {
      tokenEndpoint('POST /connect/token');
      upstream.on('GET /connections', () => ({ status: 403, body: { Title: 'Forbidden', Detail: 'AuthenticationUnsuccessful at-1' } }));
      const refused = await authorizeAndReturn('tenants');
      expect(refused.get('error')).to.equal('post_authorization_failed');
      expect(refused.get('error_description')).to.equal(`the post-authorization request GET ${upstream.url}/connections answered HTTP 403: Forbidden`);
      upstream.reset();
      tokenEndpoint('POST /connect/token');
      connections([PRACTICE]);
      const none = await authorizeAndReturn('tenants');
      expect(none.get('error_description')).to.match(/named no account to connect/);
      expect((await call(gw, 'GET', '/v2/connections?where=appSlug==tenants;metadata.tenantId==0b9a8c7d-0000-4000-8000-00000000000f')).body.data).to.deep.equal([]);
    });
  });
});
