import { expect } from 'chai';
import { MockAgent } from 'undici';
import path from 'node:path';
import { signState } from '../../../engine/http/connect/oauth-state.ts';
import { pkceChallenge } from '../../../engine/http/connect/pkce.ts';
import { seal } from '../../../engine/platform/crypto/cipher.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, expectDocumentedIfDescribed } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const RETURN_URL = 'https://app.customer.test/connected?tab=apps';
const PROVIDER = 'https://login.oauthy.example';

/** The return URL must be on one of the company's allowed origins. */
async function allowReturnOrigin(gateway: TestGateway): Promise<void> {
  const put = await documentedCall(gateway, 'PUT', '/v2/embedding', { body: { allowedOrigins: [new URL(RETURN_URL).origin], enabledApps: ['oauthy'] } });
  expect(put.status, JSON.stringify(put.body)).to.equal(200);
}

describe('the OAuth 2.0 connect flow (fake provider: undici MockAgent)', () => {
  let gw: TestGateway;
  let endUserId: string;
  // The fake provider: undici's MockAgent answers the gateway's outbound client.
  const provider = new MockAgent();
  provider.disableNetConnect();
  const tokenEndpoint = () => provider.get(PROVIDER);
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR, PUBLIC_BASE_URL: 'https://gateway.example.test' }, { dispatcher: provider });
    endUserId = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    await allowReturnOrigin(gw);
  });
  after(async () => {
    await gw.stop();
    await provider.close();
  });

  async function configure(): Promise<void> {
    const put = await documentedCall(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-123', clientSecret: 'client-secret-xyz' } });
    expect(put.status).to.equal(200);
  }

  async function authorize(query = ''): Promise<URL> {
    const response = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize?endUserId=${endUserId}&returnUrl=${encodeURIComponent(RETURN_URL)}${query}`);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return new URL(response.body.data.authorizationUrl);
  }

  async function callback(query: Record<string, string>): Promise<{ status: number; location: string | null; body: any }> {
    const response = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams(query)}`, { redirect: 'manual' });
    const text = await response.text();
    const answer = { status: response.status, location: response.headers.get('location'), body: text.startsWith('{') ? JSON.parse(text) : text };
    expectDocumentedIfDescribed('GET', '/v2/connect/callback', answer);
    return answer;
  }

  it('keeps the app configuration, showing only that a secret is set', async () => {
    await configure();
    const shown = await documentedCall(gw, 'GET', '/v2/apps/oauthy/configuration');
    expect(shown.body.data).to.include({ appSlug: 'oauthy', clientId: 'client-123', hasClientSecret: true, hasExchangeSecret: false });
    expect(JSON.stringify(shown.body)).not.to.include('client-secret-xyz');
    // Leaving the secret out keeps it.
    await documentedCall(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-123' } });
    expect((await documentedCall(gw, 'GET', '/v2/apps/oauthy/configuration')).body.data.hasClientSecret).to.equal(true);
  });

  it('answers the provider URL with client, redirect, scopes, extra params, signed state and a PKCE challenge', async () => {
    await configure();
    const url = await authorize();
    expect(`${url.origin}${url.pathname}`).to.equal(`${PROVIDER}/oauth/authorize`);
    const q = url.searchParams;
    expect(q.get('response_type')).to.equal('code');
    expect(q.get('client_id')).to.equal('client-123');
    expect(q.get('redirect_uri')).to.equal('https://gateway.example.test/v2/connect/callback');
    expect(q.get('scope')).to.equal('contacts.read contacts.write');
    expect(q.get('access_type')).to.equal('offline');
    expect(q.get('code_challenge_method')).to.equal('S256');
    expect(q.get('code_challenge')).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')!.split('.')).to.have.length(3);
  });

  it('exchanges the code (with the PKCE verifier and client secret), stores the connection and redirects back with its id', async () => {
    await configure();
    const url = await authorize();
    let sent: URLSearchParams | null = null;
    tokenEndpoint()
      .intercept({
        path: '/oauth/token',
        method: 'POST',
        body: (body: string) => {
          sent = new URLSearchParams(body);
          return true;
        },
      })
      .reply(200, { access_token: 'access-abc', refresh_token: 'refresh-def', expires_in: 3600, token_type: 'Bearer' }, { headers: { 'content-type': 'application/json' } });
    const done = await callback({ code: 'code-1', state: url.searchParams.get('state')! });
    expect(done.status).to.equal(302);
    const back = new URL(done.location!);
    expect(`${back.origin}${back.pathname}`).to.equal('https://app.customer.test/connected');
    expect(back.searchParams.get('tab')).to.equal('apps');
    const connectionId = back.searchParams.get('connectionId')!;
    expect(connectionId).to.match(/^con_/);

    expect(sent!.get('grant_type')).to.equal('authorization_code');
    expect(sent!.get('code')).to.equal('code-1');
    expect(sent!.get('client_id')).to.equal('client-123');
    expect(sent!.get('client_secret')).to.equal('client-secret-xyz');
    expect(sent!.get('redirect_uri')).to.equal('https://gateway.example.test/v2/connect/callback');
    expect(pkceChallenge(sent!.get('code_verifier')!)).to.equal(url.searchParams.get('code_challenge'));

    const connection = await documentedCall(gw, 'GET', `/v2/connections/${connectionId}`);
    expect(connection.body.data).to.include({ appSlug: 'oauthy', authType: 'OAuth2AuthorizationCode', endUserId, status: 'active' });
    const expiresIn = Date.parse(connection.body.data.tokenExpiresAt) - Date.now();
    expect(expiresIn).to.be.within(3500_000, 3600_000);
    expect(JSON.stringify(connection.body)).not.to.match(/access-abc|refresh-def/);
    expect(gw.logs()).not.to.match(/access-abc|refresh-def|client-secret-xyz|code-1/);
  });

  it('keeps the token response fields the auth names (tokenMetadata) in the connection metadata: Salesforce instance_url', async () => {
    await configure();
    const url = await authorize();
    tokenEndpoint()
      .intercept({ path: '/oauth/token', method: 'POST' })
      .reply(
        200,
        { access_token: 'access-sf', refresh_token: 'refresh-sf', instance_url: 'https://acme.my.salesforce.com', id: 'https://login.salesforce.com/id/00D/005', token_type: 'Bearer' },
        { headers: { 'content-type': 'application/json' } },
      );
    const done = await callback({ code: 'code-sf', state: url.searchParams.get('state')! });
    const connectionId = new URL(done.location!).searchParams.get('connectionId')!;
    const connection = await documentedCall(gw, 'GET', `/v2/connections/${connectionId}`);
    // instanceUrl is named by tokenMetadata; id is not, and the tokens never are metadata.
    expect(connection.body.data.metadata).to.deep.equal({ instanceUrl: 'https://acme.my.salesforce.com' });
  });

  it("starts an authorization from an end user's session (end-user token) for that end user only", async () => {
    await configure();
    const token = (await documentedCall(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token;
    const session = { url: gw.url, apiKey: token };
    const started = await documentedCall(session, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(started.status).to.equal(200);
    const state = new URL(started.body.data.authorizationUrl).searchParams.get('state')!;
    const { verifyState } = await import('../../../engine/http/connect/oauth-state.ts');
    expect((await verifyState(gw.gateway.services.keyring, state)).endUserId).to.equal(endUserId);
    const someoneElse = await documentedCall(session, 'GET', `/v2/connect/oauthy/authorize?endUserId=eu_other&returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(someoneElse.status).to.equal(400);
    expect(someoneElse.body.error.message).to.equal("endUserId: must be left out (or be the token's own end user) when calling with an end-user token");
    const forged = await documentedCall({ url: gw.url, apiKey: token.slice(0, -4) + 'AAAA' }, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(forged.status).to.equal(401);
  });

  it('refuses a state used twice, sending the browser back to its return URL with oauth_state_invalid (a reload of the callback, the back button), not a JSON page', async () => {
    await configure();
    const url = await authorize();
    tokenEndpoint().intercept({ path: '/oauth/token', method: 'POST' }).reply(200, { access_token: 'a' }, { headers: { 'content-type': 'application/json' } });
    expect((await callback({ code: 'c', state: url.searchParams.get('state')! })).status).to.equal(302);
    const before = await gw.gateway.services.store.connections.count({});
    const replay = await callback({ code: 'c', state: url.searchParams.get('state')! });
    expect(replay.status).to.equal(302);
    const back = new URL(replay.location!);
    expect(`${back.origin}${back.pathname}`).to.equal('https://app.customer.test/connected');
    expect(back.searchParams.get('error')).to.equal('oauth_state_invalid');
    expect(back.searchParams.get('error_description')).to.equal('this authorization was already completed or abandoned; start again');
    expect(back.searchParams.has('connectionId')).to.equal(false);
    expect(await gw.gateway.services.store.connections.count({})).to.equal(before);
  });

  it('refuses a forged or missing state with 400 OAUTH_STATE_INVALID; an expired one goes back to its return URL while that is allowed', async () => {
    const forged = await callback({ code: 'c', state: 'eyJhbGciOiJIUzI1NiJ9.eyJjaWQiOiJ4In0.c2lnbmF0dXJl' });
    expect(forged.status).to.equal(400);
    expect(forged.body.error).to.deep.equal({ code: 'OAUTH_STATE_INVALID', message: 'the authorization state is not one this gateway issued' });
    expect((await callback({ code: 'c' })).body.error.code).to.equal('OAUTH_STATE_INVALID');
    // A browser (the end user in the sign-in popup) is sent to the gateway's own return page, which the Connect page words: no JSON.
    for (const query of [{ code: 'c', state: 'forged' }, { error: 'access_denied' }] as Record<string, string>[]) {
      const browser = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams(query)}`, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(browser.status).to.equal(302);
      const to = new URL(browser.headers.get('location')!, gw.url);
      expect(`${to.origin}${to.pathname}`).to.equal(`${gw.url}/connect/oauth-return`);
      expect(to.searchParams.get('error')).to.equal('oauth_state_invalid');
      expect(to.searchParams.get('error_description')).to.equal('the authorization state is not one this gateway issued');
    }

    const { keyring, store } = gw.gateway.services;
    const companyId = (await store.companies.find({}))[0]!.id;
    const long = Date.now() - 20 * 60 * 1000;
    const { token, id } = await signState(keyring, { companyId, appSlug: 'oauthy', authId: 'oauth2', endUserId, returnUrl: RETURN_URL }, long);
    await store.pendingAuthorizations.insert({ id, companyId, appSlug: 'oauthy', authId: 'oauth2', endUserId, metadata: {}, secrets: seal(keyring, id, {}), expiresAt: new Date(long + 600_000), createdOn: new Date(long) });
    const expired = await callback({ code: 'c', state: token });
    expect(expired.status).to.equal(302);
    const back = new URL(expired.location!);
    expect(back.searchParams.get('error')).to.equal('oauth_state_invalid');
    expect(back.searchParams.get('error_description')).to.equal('the authorization took too long; start again');

    // An expired state whose return URL the company no longer allows is not followed: 400, as a state not ours.
    const gone = await signState(keyring, { companyId, appSlug: 'oauthy', authId: 'oauth2', endUserId, returnUrl: 'https://old.customer.test/back' }, long);
    const refused = await callback({ code: 'c', state: gone.token });
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.deep.equal({ code: 'OAUTH_STATE_INVALID', message: 'the authorization took too long; start again' });
  });

  it('sends a provider refusal back to the return URL', async () => {
    await configure();
    const url = await authorize();
    const refused = await callback({ error: 'access_denied', error_description: 'The user said no', state: url.searchParams.get('state')! });
    expect(refused.status).to.equal(302);
    const back = new URL(refused.location!);
    expect(back.searchParams.get('error')).to.equal('access_denied');
    expect(back.searchParams.get('error_description')).to.equal('The user said no');
    expect(back.searchParams.has('connectionId')).to.equal(false);
  });

  it('sends a failed token exchange back to the return URL, storing nothing', async () => {
    await configure();
    const before = await gw.gateway.services.store.connections.count({});
    const url = await authorize();
    tokenEndpoint().intercept({ path: '/oauth/token', method: 'POST' }).reply(400, { error: 'invalid_grant', error_description: 'code expired' }, { headers: { 'content-type': 'application/json' } });
    const failed = await callback({ code: 'old', state: url.searchParams.get('state')! });
    expect(failed.status).to.equal(302);
    const back = new URL(failed.location!);
    expect(back.searchParams.get('error')).to.equal('token_exchange_failed');
    expect(back.searchParams.get('error_description')).to.equal('the token endpoint login.oauthy.example refused: invalid_grant: code expired');
    expect(await gw.gateway.services.store.connections.count({})).to.equal(before);
  });

  it('takes an expires_in beyond any date (or not a number) as a token without a known expiry, never a 500', async () => {
    await configure();
    for (const expires_in of [99_999_999_999_999, '1e20', 1e308]) {
      const url = await authorize();
      tokenEndpoint().intercept({ path: '/oauth/token', method: 'POST' }).reply(200, { access_token: 'access-far', refresh_token: 'refresh-far', expires_in }, { headers: { 'content-type': 'application/json' } });
      const done = await callback({ code: 'code-far', state: url.searchParams.get('state')! });
      expect(done.status, `${expires_in}: ${JSON.stringify(done.body)}`).to.equal(302);
      const connectionId = new URL(done.location!).searchParams.get('connectionId')!;
      const connection = await documentedCall(gw, 'GET', `/v2/connections/${connectionId}`);
      expect(connection.body.data).to.include({ status: 'active', tokenExpiresAt: null });
    }
  });

  it('refuses tokens a connection could never send (over the 64 KiB credentials hold, or not header text): token_exchange_failed, storing nothing', async () => {
    await configure();
    const before = await gw.gateway.services.store.connections.count({});
    const cases: [Record<string, unknown>, string][] = [
      [{ access_token: 'a'.repeat(70 * 1024) }, 'the token endpoint login.oauthy.example answered an access_token of 71680 bytes: a connection holds at most 65536 bytes of credentials'],
      [{ access_token: 'ok-token', refresh_token: 'r'.repeat(70 * 1024) }, 'the token endpoint login.oauthy.example answered a refresh_token of 71680 bytes: a connection holds at most 65536 bytes of credentials'],
      [{ access_token: 'line\nbreak' }, 'the token endpoint login.oauthy.example answered an access_token that cannot be sent in a header (a line break or a character beyond Latin-1)'],
    ];
    for (const [answer, message] of cases) {
      const url = await authorize();
      tokenEndpoint().intercept({ path: '/oauth/token', method: 'POST' }).reply(200, answer, { headers: { 'content-type': 'application/json' } });
      const failed = await callback({ code: 'code-big', state: url.searchParams.get('state')! });
      expect(failed.status).to.equal(302);
      const back = new URL(failed.location!);
      expect(back.searchParams.get('error')).to.equal('token_exchange_failed');
      expect(back.searchParams.get('error_description')).to.equal(message);
    }
    expect(await gw.gateway.services.store.connections.count({})).to.equal(before);
  });

  it('says a token endpoint that answered 200 without an access_token answered no token, not that it refused', async () => {
    await configure();
    const url = await authorize();
    tokenEndpoint().intercept({ path: '/oauth/token', method: 'POST' }).reply(200, '<html>sign in</html>', { headers: { 'content-type': 'text/html' } });
    const failed = await callback({ code: 'code-html', state: url.searchParams.get('state')! });
    expect(new URL(failed.location!).searchParams.get('error_description')).to.equal('the token endpoint login.oauthy.example answered HTTP 200 without an access_token');
  });

  it('explains what is missing before an authorization can start', async () => {
    const noReturn = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize`);
    expect(noReturn.status).to.equal(400);
    expect(noReturn.body.error.message).to.equal('returnUrl: is required: where the browser goes when the connection is made');
    const badReturn = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize?returnUrl=javascript:alert(1)`);
    expect(badReturn.body.error.message).to.equal('returnUrl: must be an absolute http(s) URL');
    const notOauth = await documentedCall(gw, 'GET', `/v2/connect/acme-crm/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(notOauth.status).to.equal(400);
    expect(notOauth.body.error.message).to.equal(
      'authId: auth "api-key" is ApiKey; only OAuth2AuthorizationCode auths connect through the browser (create the connection with POST /v2/connections, or with POST /v2/end-user/connections from an end-user token)',
    );
    const unconfigured = await documentedCall(gw, 'GET', `/v2/connect/exchangy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(unconfigured.status).to.equal(400);
    const unauth = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`, { auth: null });
    expect(unauth.status).to.equal(401);
  });

  it('refuses a returnUrl off the allowed origins (an open redirect otherwise), naming the setting and the origins allowed', async () => {
    await configure();
    for (const returnUrl of ['https://evil.example/steal', 'https://app.customer.test.evil.example/x', 'http://app.customer.test/connected', 'https://app.customer.test:8443/connected']) {
      const refused = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize?endUserId=${endUserId}&returnUrl=${encodeURIComponent(returnUrl)}`);
      expect(refused.status, returnUrl).to.equal(400);
      expect(refused.body.error.code).to.equal('VALIDATION_ERROR');
      expect(refused.body.error.details.problems).to.deep.equal([
        {
          field: 'returnUrl',
          rule: 'origin',
          message: `must be on one of your allowed origins (the allowedOrigins of PUT /v2/embedding: one of https://app.customer.test); ${new URL(returnUrl).origin} is not`,
        },
      ]);
    }
    // A company that allowed no origin yet is told so.
    const fresh = await startTestGateway({ DEFINITIONS_DIR });
    try {
      await documentedCall(fresh, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-123' } });
      const refused = await documentedCall(fresh, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
      expect(refused.status).to.equal(400);
      expect(refused.body.error.message).to.equal('returnUrl: must be on one of your allowed origins (the allowedOrigins of PUT /v2/embedding: none yet); https://app.customer.test is not');
    } finally {
      await fresh.stop();
    }
  });

  it("answers 200 to every one of many first PUTs of an app's configuration sent at once, and keeps one", async () => {
    const fresh = await startTestGateway({ DEFINITIONS_DIR });
    try {
      const puts = await Promise.all(
        Array.from({ length: 20 }, (_, i) => documentedCall(fresh, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: `client-${i}`, clientSecret: `secret-${i}` } })),
      );
      expect(puts.map((put) => put.status)).to.deep.equal(Array(20).fill(200));
      const shown = await documentedCall(fresh, 'GET', '/v2/apps/oauthy/configuration');
      expect(shown.body.data.clientId).to.match(/^client-\d+$/);
      expect(shown.body.data.hasClientSecret).to.equal(true);
      expect(await fresh.gateway.services.store.appConfigurations.count({})).to.equal(1);
    } finally {
      await fresh.stop();
    }
  });

  it('answers 409 APP_NOT_CONFIGURED until the company configures its OAuth client', async () => {
    const fresh = await startTestGateway({ DEFINITIONS_DIR });
    try {
      await allowReturnOrigin(fresh);
      const response = await documentedCall(fresh, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
      expect(response.status).to.equal(409);
      expect(response.body.error).to.deep.equal({ code: 'APP_NOT_CONFIGURED', message: 'app "oauthy" is not configured for your company: PUT /v2/apps/oauthy/configuration first' });
    } finally {
      await fresh.stop();
    }
  });
});
