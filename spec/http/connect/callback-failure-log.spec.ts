import { expect } from 'chai';
import { MockAgent } from 'undici';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const PROVIDER = 'https://login.oauthy.example';

/**
 * A sign-in that comes back without a connection: the end user reads a sentence on the Connect page (never the
 * provider's or the gateway's words), so the developer's detail (which error, from where, for which app, company
 * and end user) must reach the developer somewhere else: the gateway's log. Before, nothing was logged, and the
 * Connect page dropped the description, so "invalid_scope" or a token endpoint's refusal was seen by no one.
 */
describe('a failed OAuth sign-in is logged for the developer', () => {
  let gw: TestGateway;
  const provider = new MockAgent();
  provider.disableNetConnect();
  let session: { url: string; apiKey: string };
  let endUserId: string;

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR, PUBLIC_BASE_URL: 'https://gateway.example.test' }, { dispatcher: provider });
    expect((await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://app.customer.test'], enabledApps: ['oauthy'] } })).status).to.equal(200);
    expect((await documentedCall(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-123', clientSecret: 'client-secret-xyz' } })).status).to.equal(200);
    endUserId = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId as string;
    session = { url: gw.url, apiKey: (await documentedCall(gw, 'GET', `/v1/users/${endUserId}/token`)).body.token as string };
  });
  after(async () => {
    await gw.stop();
    await provider.close();
  });

  async function startSignIn(): Promise<string> {
    const started = await documentedCall(session, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent('https://app.customer.test/connected')}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    return new URL(started.body.data.authorizationUrl).searchParams.get('state')!;
  }

  async function callback(query: Record<string, string>): Promise<URL> {
    const response = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams(query)}`, { redirect: 'manual' });
    expect(response.status).to.equal(302);
    return new URL(response.headers.get('location')!, gw.url);
  }

  const lineOf = (error: string) =>
    gw
      .logs()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.event === 'oauth.signin.failed' && line.error === error);

  it("logs the provider's refusal (error and description) with the app, company and end user, as a warning", async () => {
    const state = await startSignIn();
    const back = await callback({ state, error: 'invalid_scope', error_description: 'contacts.write is not a scope of this client' });
    expect(back.searchParams.get('error')).to.equal('invalid_scope');
    const line = lineOf('invalid_scope');
    expect(line, gw.logs()).to.not.equal(undefined);
    expect(line).to.include({ level: 40, app: 'oauthy', endUserId, error: 'invalid_scope', description: 'contacts.write is not a scope of this client' });
    expect(line!.companyId).to.match(/^cmp_/);
    expect(String(line!.msg)).to.match(/^OAuth sign-in to oauthy failed: invalid_scope/);
  });

  it("logs a token endpoint's refusal without the code or the client secret", async () => {
    const state = await startSignIn();
    provider
      .get(PROVIDER)
      .intercept({ path: '/oauth/token', method: 'POST' })
      .reply(400, { error: 'invalid_client', error_description: 'client authentication failed' }, { headers: { 'content-type': 'application/json' } });
    const back = await callback({ state, code: 'code-secret-77' });
    const error = back.searchParams.get('error')!;
    expect(error).to.equal('token_exchange_failed');
    const line = lineOf(error);
    expect(line, gw.logs()).to.not.equal(undefined);
    expect(line).to.include({ level: 40, app: 'oauthy', endUserId });
    expect(String(line!.description)).to.include('invalid_client');
    expect(gw.logs()).not.to.match(/code-secret-77|client-secret-xyz/);
  });

  it("logs the end user's own refusal (access_denied) at info: not a fault", async () => {
    const state = await startSignIn();
    await callback({ state, error: 'access_denied' });
    expect(lineOf('access_denied')).to.include({ level: 30, app: 'oauthy', endUserId });
  });

  it('logs a sign-in state used twice (a reload of the callback) at info', async () => {
    const state = await startSignIn();
    await callback({ state, error: 'access_denied' });
    const again = await callback({ state, error: 'access_denied' });
    expect(again.searchParams.get('error')).to.equal('oauth_state_invalid');
    expect(lineOf('oauth_state_invalid')).to.include({ level: 30, app: 'oauthy', endUserId });
  });
});
