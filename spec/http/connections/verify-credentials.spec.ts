import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { eventually } from '../../support/eventually.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');
const CUSTOMER = 'https://app.customer.test';

/** A chat app whose API key auth declares its "who am I" request: GET /me, the team's name as the account label. */
const TEAMCHAT: Record<string, string> = {
  'teamchat/app.yaml': 'id: teamchat\nslug: teamchat\nname: Team chat\ndescription: A made-up chat API served by the test upstream.\npublished: 1\n',
  'teamchat/versions/1/api.yaml': 'baseUrl: __UPSTREAM__/chat\nauths:\n  - key\n',
  'teamchat/versions/1/auths/key.yaml': [
    'type: ApiKey',
    'id: key',
    'name: API key',
    'in: Header',
    'parameterName: X-Api-Key',
    "value: '{{apiKey}}'",
    'arguments:',
    '  - key: apiKey',
    '    dataType: String',
    '    required: true',
    'verify:',
    '  path: /me',
    '  account: team.name',
    '',
  ].join('\n'),
  'teamchat/versions/1/actions/list-channels.yaml': [
    'id: list-channels',
    'slug: list-channels',
    'name: List channels',
    'operation: list',
    'method: GET',
    'path: /channels',
    "response: '{ \"success\": status = 200, \"data\": body }'",
    '',
  ].join('\n'),
};

/** An OAuth app whose auth names the account with the new token (GET /me, the email). */
const WHOAMI: Record<string, string> = {
  'whoami/app.yaml': 'id: whoami\nslug: whoami\nname: Who am I\ndescription: A made-up OAuth app served by the test upstream.\npublished: 1\n',
  'whoami/versions/1/api.yaml': 'baseUrl: __UPSTREAM__/who\nauths:\n  - oauth2\n',
  'whoami/versions/1/auths/oauth2.yaml': [
    'type: OAuth2AuthorizationCode',
    'id: oauth2',
    'authorizeUrl: __UPSTREAM__/oauth/authorize',
    'tokenUrl: __UPSTREAM__/oauth/token',
    'verify:',
    '  path: /me',
    '  account: email',
    '',
  ].join('\n'),
};

/** The chat API accepts `good-key` and `other-key` (two teams), refuses anything else with a 401. */
const KEYS: Record<string, string> = { 'good-key': 'Acme team', 'other-key': 'Globex team', 'echo-key-0123': 'team of echo-key-0123\n' };

describe('credentials checked when connecting (an auth\'s verify) and the account label; a refused API key needs reauthorization', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  let endUser: { url: string; apiKey: string };
  const count = async () => (await gw.gateway.services.store.connections.find({ appSlug: 'teamchat' }, { limit: 1000 })).length;
  const chat = () => {
    upstream.on('GET /chat/me', (req) => {
      const team = KEYS[String(req.headers['x-api-key'])];
      return team ? { body: { user: 'ada', team: { id: 'T1', name: team } } } : { status: 401, body: { error: 'invalid_auth' } };
    });
    upstream.on('GET /chat/channels', (req) => (KEYS[String(req.headers['x-api-key'])] ? { body: [{ id: 'C1' }] } : { status: 401, body: { error: 'invalid_auth' } }));
  };

  before(async () => {
    await upstream.start();
    // definitionsFor writes the extra files as they are: their upstream placeholder is filled here.
    const extra = Object.fromEntries(Object.entries({ ...TEAMCHAT, ...WHOAMI }).map(([file, text]) => [file, text.replaceAll('__UPSTREAM__', upstream.url)]));
    const defs = await definitionsFor(FIXTURE, upstream.url, extra);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', WEBHOOK_POLL_INTERVAL_MS: '50' });
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [CUSTOMER], enabledApps: ['teamchat', 'whoami'] } })).status).to.equal(200);
    const id = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    endUser = { url: gw.url, apiKey: (await call(gw, 'GET', `/v1/users/${id}/token`)).body.token };
    expect((await call(gw, 'PUT', '/v2/apps/whoami/configuration', { body: { clientId: 'who-client', clientSecret: 'who-secret', redirectUri: `${gw.url}/v2/connect/callback` } })).status).to.equal(200);
  });

  /** An authorization of the OAuth app through its callback (the provider's consent skipped): the new connection. */
  async function authorizeWhoami(): Promise<any> {
    const started = await call(gw, 'GET', `/v2/connect/whoami/authorize?returnUrl=${encodeURIComponent(`${CUSTOMER}/back`)}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const state = new URL(started.body.data.authorizationUrl).searchParams.get('state')!;
    upstream.on('POST /oauth/token', () => ({ body: { access_token: 'who-token-1', token_type: 'Bearer', expires_in: 3600 } }));
    const back = await fetch(`${gw.url}/v2/connect/callback?${new URLSearchParams({ code: 'code-1', state })}`, { redirect: 'manual' });
    expect(back.status).to.equal(302);
    const connectionId = new URL(back.headers.get('location')!).searchParams.get('connectionId');
    expect(connectionId, back.headers.get('location')!).to.match(/^con_/);
    return (await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data;
  }
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  beforeEach(() => {
    upstream.reset();
    chat();
  });

  it('POST /v2/connections sends the verification with the key and keeps the account label, shown by GET /v2/connections', async () => {
    const created = await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'teamchat', credentials: { apiKey: 'good-key' } } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data).to.include({ appSlug: 'teamchat', accountLabel: 'Acme team', name: null, status: 'active' });
    expect(upstream.calls('GET /chat/me').map((r) => r.headers['x-api-key'])).to.deep.equal(['good-key']);
    const listed = await documentedCall(gw, 'GET', '/v2/connections?where=appSlug==teamchat');
    expect(listed.body.data.find((c: { id: string }) => c.id === created.body.data.id)).to.include({ accountLabel: 'Acme team' });
  });

  it('the label never repeats the credentials: a value of them the app echoes is redacted, as in a run\'s answer', async () => {
    const created = await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'teamchat', credentials: { apiKey: 'echo-key-0123' } } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data.accountLabel).to.equal('team of [redacted]');
  });

  it('an OAuth connection takes its account label from the auth\'s verify, sent with the new access token', async () => {
    upstream.on('GET /who/me', (req) => (req.headers.authorization === 'Bearer who-token-1' ? { body: { email: 'ada@example.com' } } : { status: 401, body: {} }));
    expect(await authorizeWhoami()).to.include({ appSlug: 'whoami', accountLabel: 'ada@example.com', status: 'active' });
  });

  it('an OAuth verification that fails leaves the label null and never the authorization', async () => {
    upstream.on('GET /who/me', () => ({ status: 500, body: { error: 'down' } }));
    expect(await authorizeWhoami()).to.include({ appSlug: 'whoami', accountLabel: null, status: 'active' });
  });

  it('a key the app refuses answers 400 naming the credential field, and nothing is stored', async () => {
    const before = await count();
    const refused = await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'teamchat', credentials: { apiKey: 'wrong-key' } } });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.code).to.equal('VALIDATION_ERROR');
    const [problem] = refused.body.error.details.problems;
    expect(problem).to.deep.include({ field: 'credentials.apiKey', rule: 'accepted' });
    expect(problem.message).to.include('the app refused this apiKey');
    expect(JSON.stringify(refused.body)).not.to.include('wrong-key');
    expect(await count(), 'nothing stored').to.equal(before);
  });

  it('an app that cannot say (a 500 to the verification) answers 502 VERIFICATION_FAILED, and nothing is stored', async () => {
    upstream.on('GET /chat/me', () => ({ status: 500, body: { error: 'down' } }));
    const before = await count();
    const failed = await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'teamchat', credentials: { apiKey: 'good-key' } } });
    expect(failed.status).to.equal(502);
    expect(failed.body.error.code).to.equal('VERIFICATION_FAILED');
    expect(failed.body.error.message).to.include('HTTP 500').and.not.include('good-key');
    expect(await count()).to.equal(before);
  });

  it('an end user\'s two accounts of one app are told apart by their labels; a wrong key is a form error and stores nothing', async () => {
    const before = await count();
    const wrong = await documentedCall(endUser, 'POST', '/v2/end-user/connections', { body: { appSlug: 'teamchat', credentials: { apiKey: 'typo' } } });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error.details.problems.map((p: { field: string; rule: string }) => `${p.field} ${p.rule}`)).to.deep.equal(['credentials.apiKey accepted']);
    expect(await count()).to.equal(before);

    for (const apiKey of ['good-key', 'other-key']) {
      const made = await documentedCall(endUser, 'POST', '/v2/end-user/connections', { body: { appSlug: 'teamchat', credentials: { apiKey } } });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
    }
    const own = await documentedCall(endUser, 'GET', '/v2/end-user/connections');
    expect(own.body.data.map((c: { accountLabel: string }) => c.accountLabel).sort()).to.deep.equal(['Acme team', 'Globex team']);
  });

  it('PATCH with credentials the app refuses is 400 and changes nothing; accepted ones give the label anew', async () => {
    const id = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'teamchat', credentials: { apiKey: 'good-key' } } })).body.data.id;
    const refused = await documentedCall(gw, 'PATCH', `/v2/connections/${id}`, { body: { credentials: { apiKey: 'wrong-key' } } });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.details.problems[0]).to.deep.include({ field: 'credentials.apiKey', rule: 'accepted' });
    const run = await call(gw, 'POST', '/v2/universal/apps/teamchat/actions/list-channels/run', { body: { connectionId: id } });
    expect(run.status, 'the old key still works').to.equal(200);
    expect(upstream.calls('GET /chat/channels').at(-1)!.headers['x-api-key']).to.equal('good-key');

    const changed = await documentedCall(gw, 'PATCH', `/v2/connections/${id}`, { body: { credentials: { apiKey: 'other-key' } } });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect(changed.body.data).to.include({ id, accountLabel: 'Globex team' });
  });

  it('a 401 of one endpoint while the verification still accepts the key (a permission, say) leaves the connection active', async () => {
    const id = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'teamchat', credentials: { apiKey: 'good-key' } } })).body.data.id;
    upstream.on('GET /chat/channels', () => ({ status: 401, body: { error: 'not_allowed_token_type' } }));
    const run = await call(gw, 'POST', '/v2/universal/apps/teamchat/actions/list-channels/run', { body: { connectionId: id } });
    expect(run.body.meta.authenticated).to.equal(false);
    expect(upstream.calls('GET /chat/me'), 'asked again once').to.have.length(2);
    expect((await call(gw, 'GET', `/v2/connections/${id}`)).body.data.status).to.equal('active');
  });

  it('a run whose API key the app now refuses (401, and 401 to the verification) marks the connection needs_reauthorization with its webhook; a PATCH makes the same connection active again', async () => {
    const hook = await call(gw, 'POST', '/v2/webhooks', { body: { url: `${upstream.url}/hooks`, events: ['connection.needs_reauthorization', 'connection.reauthorized'] } });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    const id = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'teamchat', credentials: { apiKey: 'good-key' } } })).body.data.id;
    upstream.on('POST /hooks', () => ({ status: 204 }));
    // The key is revoked at the app.
    delete KEYS['good-key'];
    try {
      const run = (): Promise<{ status: number; body: any }> => call(gw, 'POST', '/v2/universal/apps/teamchat/actions/list-channels/run', { body: { connectionId: id } });
      const first = await run();
      expect(first.body.success).to.equal(false);
      expect(first.body.meta.authenticated).to.equal(false);
      expect((await call(gw, 'GET', `/v2/connections/${id}`)).body.data.status).to.equal('needs_reauthorization');
      const delivered = await eventually(async () => upstream.calls('POST /hooks'), (calls) => calls.length >= 1, 'the needs_reauthorization webhook');
      expect(JSON.parse(delivered[0]!.body)).to.deep.include({ type: 'connection.needs_reauthorization' });

      const next = await run();
      expect(next.status).to.equal(409);
      expect(next.body.error.code).to.equal('CONNECTION_NEEDS_REAUTHORIZATION');
      expect(next.body.error.message).to.include(`PATCH /v2/connections/${id} with new credentials`);
      expect(upstream.calls('GET /chat/channels'), 'no call with the refused key').to.have.length(1);

      const patched = await documentedCall(gw, 'PATCH', `/v2/connections/${id}`, { body: { credentials: { apiKey: 'other-key' } } });
      expect(patched.body.data).to.include({ id, status: 'active', accountLabel: 'Globex team' });
      expect((await run()).status).to.equal(200);
      const both = await eventually(async () => upstream.calls('POST /hooks'), (calls) => calls.length >= 2, 'the reauthorized webhook');
      expect(JSON.parse(both[1]!.body)).to.deep.include({ type: 'connection.reauthorized' });
    } finally {
      KEYS['good-key'] = 'Acme team';
      await call(gw, 'DELETE', `/v2/webhooks/${hook.body.data.id}`);
    }
  });
});
