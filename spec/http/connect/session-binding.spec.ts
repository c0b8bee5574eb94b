import { expect } from 'chai';
import { MockAgent } from 'undici';
import path from 'node:path';
import { tokenRunningOut } from '../pages/connect-page/customer-page.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, expectDocumentedIfDescribed } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');
const RETURN_URL = 'https://app.customer.test/connected';
const PROVIDER = 'https://login.oauthy.example';

/**
 * An end user's session (end-user token) that starts an authorization must be the one that finishes it. Otherwise
 * anyone with a session of their own (any end user of the company) could start one, send the provider's consent
 * URL to someone else, and have that person's account connected to their own end user when they consent.
 */
describe('an authorization an end-user session starts is finished by that session', () => {
  let gw: TestGateway;
  const provider = new MockAgent();
  provider.disableNetConnect();
  let mallory: { url: string; apiKey: string };
  let victim: { url: string; apiKey: string };
  let malloryId: string;
  let victimId: string;

  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR, PUBLIC_BASE_URL: 'https://gateway.example.test' }, { dispatcher: provider });
    expect((await documentedCall(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [new URL(RETURN_URL).origin], enabledApps: ['oauthy'] } })).status).to.equal(200);
    expect((await documentedCall(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-123', clientSecret: 'client-secret-xyz' } })).status).to.equal(200);
    const session = async (externalId: string) => {
      const id = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId } })).body.data.userId as string;
      return { id, session: { url: gw.url, apiKey: (await documentedCall(gw, 'GET', `/v1/users/${id}/token`)).body.token as string } };
    };
    const m = await session('mallory');
    malloryId = m.id;
    mallory = m.session;
    const v = await session('victim');
    victimId = v.id;
    victim = v.session;
  });
  after(async () => {
    await gw.stop();
    await provider.close();
  });

  /** The provider's consent given in a browser, and the callback it leads to: whoever follows the URL gets this redirect. */
  async function consent(authorizationUrl: string, accessToken: string): Promise<URL> {
    provider
      .get(PROVIDER)
      .intercept({ path: '/oauth/token', method: 'POST' })
      .reply(200, { access_token: accessToken, refresh_token: `r-${accessToken}`, expires_in: 3600 }, { headers: { 'content-type': 'application/json' } });
    const state = new URL(authorizationUrl).searchParams.get('state')!;
    const response = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ code: 'code-1', state })}`, { redirect: 'manual' });
    const answer = { status: response.status, location: response.headers.get('location'), body: await response.text() };
    expectDocumentedIfDescribed('GET', '/v2/connect/callback', answer);
    expect(answer.status, answer.body).to.equal(302);
    return new URL(answer.location!);
  }

  async function connectionsOf(session: { url: string; apiKey: string }): Promise<unknown[]> {
    const listed = await documentedCall(session, 'GET', '/v2/end-user/connections');
    expect(listed.status).to.equal(200);
    return listed.body.data;
  }

  it('stores nothing at the callback: the browser gets a choice to confirm, which only the session that started it can see or make', async () => {
    const started = await documentedCall(mallory, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(started.status).to.equal(200);
    // Mallory sends the consent URL to someone else, who consents with their account.
    const back = await consent(started.body.data.authorizationUrl, 'victims-access');
    expect(back.searchParams.has('connectionId')).to.equal(false);
    const choiceId = back.searchParams.get('choiceId')!;
    expect(choiceId).to.match(/^cho_/);
    expect(await connectionsOf(mallory)).to.deep.equal([]);

    // The victim's own session (their Connect page hears the outcome) cannot see or confirm it, nor can another company's key.
    for (const verb of ['GET', 'POST'] as const) {
      const tried = await documentedCall(victim, verb, `/v2/connect/choices/${choiceId}`, verb === 'POST' ? { body: { optionId: '1' } } : {});
      expect(tried.status).to.equal(404);
      expect(tried.body.error.code).to.equal('NOT_FOUND');
    }
    expect(await connectionsOf(victim)).to.deep.equal([]);
    expect(await connectionsOf(mallory)).to.deep.equal([]);
  });

  it('the session that started it sees one option to confirm, and confirming makes the connection for its end user', async () => {
    const started = await documentedCall(mallory, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
    const choiceId = (await consent(started.body.data.authorizationUrl, 'own-access')).searchParams.get('choiceId')!;
    const shown = await documentedCall(mallory, 'GET', `/v2/connect/choices/${choiceId}`);
    expect(shown.status, JSON.stringify(shown.body)).to.equal(200);
    expect(shown.body.data).to.include({ id: choiceId, appSlug: 'oauthy', endUserId: malloryId, confirm: true, connectionId: null });
    expect(shown.body.data.options).to.have.length(1);
    const made = await documentedCall(mallory, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    expect(made.body.data.created).to.equal(true);
    const connection = await documentedCall(gw, 'GET', `/v2/connections/${made.body.data.connectionId}`);
    expect(connection.body.data).to.include({ appSlug: 'oauthy', endUserId: malloryId, status: 'active', accountLabel: null });
    const again = await documentedCall(mallory, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
    expect(again.status).to.equal(404);
  });

  it('binds a reconnect the same way: the connection keeps its tokens until its own session confirms', async () => {
    const [own] = (await connectionsOf(mallory)) as { id: string }[];
    const started = await documentedCall(mallory, 'GET', `/v2/end-user/connections/${own!.id}/reauthorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const choiceId = (await consent(started.body.data.authorizationUrl, 'renewed-access')).searchParams.get('choiceId')!;
    expect((await documentedCall(victim, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } })).status).to.equal(404);
    const shown = await documentedCall(mallory, 'GET', `/v2/connect/choices/${choiceId}`);
    expect(shown.body.data).to.include({ confirm: true, connectionId: own!.id });
    const made = await documentedCall(mallory, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
    expect(made.body.data).to.deep.equal({ connectionId: own!.id, created: false });
  });

  /** Mallory's session token, as if issued earlier: it ran out `secondsAgo` seconds ago. */
  async function tokenExpired(secondsAgo: number): Promise<{ url: string; apiKey: string }> {
    // tokenRunningOut's exp is validForMs from now, less the 30 s clock tolerance.
    return { url: gw.url, apiKey: (await tokenRunningOut(gw, malloryId, -(secondsAgo - 30) * 1000)).token };
  }

  it('takes the starting session\'s token up to 10 minutes after it ran out (a sign-in that ends late), for its choices only', async () => {
    const started = await documentedCall(mallory, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
    const choiceId = (await consent(started.body.data.authorizationUrl, 'late-access')).searchParams.get('choiceId')!;
    const longGone = await tokenExpired(11 * 60);
    const refused = await documentedCall(longGone, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
    expect(refused.status).to.equal(401);
    expect(refused.body.error.code).to.equal('UNAUTHORIZED');
    const late = await tokenExpired(5 * 60);
    expect((await documentedCall(late, 'GET', '/v2/end-user/connections')).status, 'anywhere else it is refused').to.equal(401);
    expect((await documentedCall(late, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`)).status).to.equal(401);
    const made = await documentedCall(late, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    expect(made.body.data.created).to.equal(true);
  });

  it('keeps at most ten sign-ins waiting for one end user to confirm: the eleventh gives up the oldest, which is then 404', async () => {
    const choices: string[] = [];
    for (let i = 0; i < 11; i++) {
      const started = await documentedCall(victim, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent(RETURN_URL)}`);
      choices.push((await consent(started.body.data.authorizationUrl, `loop-${i}`)).searchParams.get('choiceId')!);
    }
    const oldest = await documentedCall(victim, 'POST', `/v2/connect/choices/${choices[0]}`, { body: { optionId: '1' } });
    expect(oldest.status).to.equal(404);
    expect(oldest.body.error.code).to.equal('NOT_FOUND');
    for (const kept of [choices[1], choices[10]]) {
      const made = await documentedCall(victim, 'POST', `/v2/connect/choices/${kept}`, { body: { optionId: '1' } });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
    }
    const waiting = await gw.gateway.services.store.pendingAuthorizations.find({ endUserId: victimId });
    expect(waiting.length, 'what is left waiting').to.equal(8);
  });

  it("leaves a backend's authorization (API key) as it was: the callback makes the connection", async () => {
    const started = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize?endUserId=${malloryId}&returnUrl=${encodeURIComponent(RETURN_URL)}`);
    const back = await consent(started.body.data.authorizationUrl, 'backend-access');
    expect(back.searchParams.get('connectionId')).to.match(/^con_/);
  });

  it('binds a backend\'s authorization too when it asks (confirm=true): the API key makes the choice once it checked its browser', async () => {
    const bad = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize?endUserId=${malloryId}&confirm=yes&returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(bad.status).to.equal(400);
    expect(bad.body.error.message).to.equal('confirm: must be true or false');
    const started = await documentedCall(gw, 'GET', `/v2/connect/oauthy/authorize?endUserId=${malloryId}&confirm=true&returnUrl=${encodeURIComponent(RETURN_URL)}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const before = (await connectionsOf(mallory)).length;
    const back = await consent(started.body.data.authorizationUrl, 'bound-backend-access');
    expect(back.searchParams.has('connectionId')).to.equal(false);
    const choiceId = back.searchParams.get('choiceId')!;
    expect((await connectionsOf(mallory)).length, 'nothing stored yet').to.equal(before);
    const made = await documentedCall(gw, 'POST', `/v2/connect/choices/${choiceId}`, { body: { optionId: '1' } });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    expect((await connectionsOf(mallory)).length).to.equal(before + 1);
  });
});
