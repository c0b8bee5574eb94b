import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const RETURN_URL = 'https://app.customer.test/back';

/**
 * What an end-user token (which lives in a browser) may make the gateway store is bounded: connections
 * (END_USER_MAX_CONNECTIONS) and authorizations under way (ten an end user; starting one more gives up the oldest).
 */
describe('an end-user session stores a bounded number of connections and authorizations', () => {
  let gw: TestGateway;
  const sessionOf = async (externalId: string) => {
    const id = (await call(gw, 'POST', '/v1/users', { body: { externalId } })).body.data.userId as string;
    return { id, session: { url: gw.url, apiKey: (await call(gw, 'GET', `/v1/users/${id}/token`)).body.token as string } };
  };
  const create = (session: { url: string; apiKey: string }, apiKey: string) =>
    documentedCall(session, 'POST', '/v2/end-user/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey }, metadata: { region: 'eu' } } });
  const authorize = (session: { url: string; apiKey: string }) => documentedCall(session, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
  /** The callback of an authorization URL's state, as the provider would send the browser back: where it is redirected. */
  const callBack = async (authorizationUrl: string) => {
    const state = new URL(authorizationUrl).searchParams.get('state')!;
    const back = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ error: 'access_denied', state })}`, { redirect: 'manual' });
    expect(back.status).to.equal(302);
    return new URL(back.headers.get('location')!).searchParams;
  };

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR, END_USER_MAX_CONNECTIONS: '3' });
    expect((await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://app.customer.test'], enabledApps: ['acme-crm', 'oauthy'] } })).status).to.equal(200);
    const configured = await documentedCall(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'oauthy-client', clientSecret: 'oauthy-secret', redirectUri: 'https://gateway.test/v2/connect/callback' } });
    expect(configured.status, JSON.stringify(configured.body)).to.equal(200);
  });
  after(async () => {
    await gw.stop();
  });

  it('refuses a connection past END_USER_MAX_CONNECTIONS with 409 CONNECTION_LIMIT_REACHED naming the setting, by form and by OAuth; room again after a disconnect; the API key is not held to it', async () => {
    const { id, session: ada } = await sessionOf('ada');
    for (let i = 0; i < 3; i++) expect((await create(ada, `key-${i}`)).status, `connection ${i + 1}`).to.equal(201);
    const refused = await create(ada, 'key-3');
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.deep.equal({
      code: 'CONNECTION_LIMIT_REACHED',
      message: `end user ${id} has 3 connections, the most an end user's session may make (END_USER_MAX_CONNECTIONS); disconnect one first`,
    });
    const oauth = await authorize(ada);
    expect(oauth.status).to.equal(409);
    expect(oauth.body.error.code).to.equal('CONNECTION_LIMIT_REACHED');

    // The company's backend may still connect its end user.
    const byCompany = await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', endUserId: id, credentials: { apiKey: 'key-c' }, metadata: { region: 'eu' } } });
    expect(byCompany.status, JSON.stringify(byCompany.body)).to.equal(201);
    expect((await create(ada, 'key-4')).status).to.equal(409);

    // Four in all (three of her own, one of the company's): two disconnected leave room for one more.
    const mine = (await call(ada, 'GET', '/v2/end-user/connections')).body.data.map((c: { id: string }) => c.id) as string[];
    expect(mine).to.have.length(4);
    for (const gone of mine.slice(0, 2)) expect((await call(ada, 'DELETE', `/v2/end-user/connections/${gone}`)).status).to.equal(200);
    expect((await create(ada, 'key-5')).status).to.equal(201);
    expect((await authorize(ada)).status).to.equal(409);

    // Another end user is not held back.
    const { session: bob } = await sessionOf('bob');
    expect((await create(bob, 'key-b')).status).to.equal(201);
  });

  it('keeps at most ten authorizations under way for one end user: the eleventh gives up the oldest, whose callback says to start again', async () => {
    const { session: cleo } = await sessionOf('cleo');
    const urls: string[] = [];
    for (let i = 0; i < 12; i++) {
      const started = await authorize(cleo);
      expect(started.status, JSON.stringify(started.body)).to.equal(200);
      urls.push(started.body.data.authorizationUrl);
    }
    // The two oldest were given up; the newest ten are still under way (here the provider refused them: the outcome reaches the return URL).
    for (const url of urls.slice(0, 2)) {
      const outcome = await callBack(url);
      expect(outcome.get('error')).to.equal('oauth_state_invalid');
      expect(outcome.get('error_description')).to.equal('this authorization was already completed or abandoned; start again');
    }
    for (const url of urls.slice(2)) expect((await callBack(url)).get('error')).to.equal('access_denied');
    // Another end user's authorizations are theirs: dana's first is still under way after cleo's twelve.
    const { session: dana } = await sessionOf('dana');
    const first = (await authorize(dana)).body.data.authorizationUrl;
    for (let i = 0; i < 3; i++) expect((await authorize(cleo)).status).to.equal(200);
    expect((await callBack(first)).get('error')).to.equal('access_denied');
  });
});
