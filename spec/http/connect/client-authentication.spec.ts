import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream, type ReceivedRequest } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/oauth-providers');
const CLIENT_ID = 'ledger-client';
// A secret with characters Basic encodes (RFC 6749 §2.3.1: form-urlencoded first), and that must never be logged.
const CLIENT_SECRET = 'ledger secret/+=';
const BASIC = `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`;

/**
 * `clientAuthentication: Header` on an OAuth2AuthorizationCode auth: the
 * company's client id and secret go to the token endpoint as HTTP Basic, for
 * the code exchange and for every refresh, never in the form (Xero, Intuit).
 * The fake provider answers `invalid_client` to a client sent any other way,
 * as those providers do.
 */
describe('OAuth 2.0 authorization code with the client as HTTP Basic (clientAuthentication: Header)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', PUBLIC_BASE_URL: 'https://gateway.example.test' });
    const put = await call(gw, 'PUT', '/v2/apps/ledger/configuration', { body: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
  });
  after(async () => {
    await gw?.stop();
    await upstream.stop();
    await cleanupDefs?.();
  });

  /** Xero's and Intuit's token endpoints: the client only as Basic; in the body it is `invalid_client`. */
  function basicOnlyTokenEndpoint(): void {
    let issued = 0;
    upstream.on('POST /oauth/token', (req: ReceivedRequest) => {
      const form = new URLSearchParams(req.body);
      if (req.headers.authorization !== BASIC || form.has('client_secret') || form.has('client_id')) return { status: 401, body: { error: 'invalid_client' } };
      const grant = form.get('grant_type');
      if (grant === 'authorization_code' && form.get('code') === 'code-1') return { body: { access_token: `at-${++issued}`, refresh_token: 'rt-1', expires_in: 1800, token_type: 'Bearer' } };
      if (grant === 'refresh_token' && form.get('refresh_token') === 'rt-1') return { body: { access_token: `at-${++issued}`, refresh_token: 'rt-2', expires_in: 1800, token_type: 'Bearer' } };
      return { status: 400, body: { error: 'invalid_grant' } };
    });
  }

  it('exchanges the code with Basic, and refreshes with Basic after a 401, keeping the connection active', async () => {
    basicOnlyTokenEndpoint();
    // The ledger takes only the token of the second grant: the first run's 401 makes the gateway refresh.
    upstream.on('GET /ledger/invoices', (req) => (req.headers.authorization === 'Bearer at-2' ? { body: { invoices: [{ id: 'inv-1' }] } } : { status: 401, body: { error: 'expired' } }));

    const returnUrl = 'https://gateway.example.test/connect/oauth-return';
    const started = await call(gw, 'GET', `/v2/connect/ledger/authorize?returnUrl=${encodeURIComponent(returnUrl)}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const state = new URL(started.body.data.authorizationUrl).searchParams.get('state')!;
    const back = await fetch(`${gw.url}/v2/connect/callback?code=code-1&state=${encodeURIComponent(state)}`, { redirect: 'manual' });
    expect(back.status).to.equal(302);
    const outcome = new URL(back.headers.get('location')!);
    expect(outcome.searchParams.get('error_description'), 'the code exchange').to.equal(null);
    const connectionId = outcome.searchParams.get('connectionId')!;
    expect(connectionId).to.match(/^con_/);
    const [exchange] = upstream.calls('POST /oauth/token');
    expect(exchange!.headers.authorization).to.equal(BASIC);
    expect(Object.fromEntries(new URLSearchParams(exchange!.body))).to.deep.equal({ grant_type: 'authorization_code', code: 'code-1', redirect_uri: 'https://gateway.example.test/v2/connect/callback' });

    const run = await call(gw, 'POST', '/v2/universal/apps/ledger/actions/list-invoices/run', { body: { connectionId } });
    expect(run.status, JSON.stringify(run.body)).to.equal(200);
    expect(run.body).to.deep.include({ success: true, data: [{ id: 'inv-1' }] });
    const refresh = upstream.calls('POST /oauth/token')[1]!;
    expect(refresh.headers.authorization).to.equal(BASIC);
    expect(Object.fromEntries(new URLSearchParams(refresh.body))).to.deep.equal({ grant_type: 'refresh_token', refresh_token: 'rt-1' });
    const connection = await call(gw, 'GET', `/v2/connections/${connectionId}`);
    expect(connection.body.data.status).to.equal('active');
    expect(gw.logs()).not.to.include(CLIENT_SECRET);
    expect(gw.logs()).not.to.include(BASIC.slice('Basic '.length));
  });
});
