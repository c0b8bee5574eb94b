import { expect } from 'chai';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream, type Reply } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/run');

/** An app whose token endpoint declares its own "the grant is gone" error, and one whose token endpoint resets every connection. */
function extraApps(upstreamUrl: string, resetUrl: string): Record<string, string> {
  const app = (slug: string, tokenUrl: string, more = '') => ({
    [`${slug}/app.yaml`]: `id: ${slug}\nslug: ${slug}\nname: ${slug}\npublished: 1\n`,
    [`${slug}/versions/1/api.yaml`]: `baseUrl: ${upstreamUrl}/crm\nauths:\n  - oauth2\n`,
    [`${slug}/versions/1/auths/oauth2.yaml`]: `type: OAuth2AuthorizationCode\nid: oauth2\nname: OAuth 2.0\nauthorizeUrl: ${upstreamUrl}/oauth/authorize\ntokenUrl: ${tokenUrl}\nrefresh:\n  enabled: true\n${more}`,
    [`${slug}/versions/1/actions/list-contacts.yaml`]: 'id: list-contacts\nslug: list-contacts\nname: List contacts\noperation: list\nmethod: GET\npath: /contacts\nresponse: \'{ "success": status < 300, "data": body.contacts, "meta": { "authenticated": status != 401 } }\'\n',
  });
  return {
    ...app('vault', `${upstreamUrl}/vault/token`, 'grantRevokedErrors:\n  - token_revoked\n'),
    ...app('flaky', `${resetUrl}/token`),
    ...app('walled', 'http://10.255.255.1/token'),
  };
}

describe('a token endpoint that fails: only a lost grant strands a connection', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let resetter: net.Server;
  let resets = 0;
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  const run = (connectionId: string, app = 'crm') => call(gw, 'POST', `/v2/universal/apps/${app}/actions/list-contacts/run`, { body: { connectionId } });
  const connect = async (credentials: Record<string, string>, appSlug = 'crm') =>
    (await call(gw, 'POST', '/v2/connections', { body: { appSlug, credentials } })).body.data.id as string;
  const statusOf = async (connectionId: string) => (await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data.status;
  const expired = { accessToken: 'old', refreshToken: 'rt-1', expiresAt: '2020-01-01T00:00:00Z' };

  before(async () => {
    await upstream.start();
    resetter = net.createServer((socket) => {
      resets++;
      socket.on('error', () => undefined);
      socket.once('data', () => socket.resetAndDestroy());
    });
    await new Promise<void>((resolve) => resetter.listen(0, '127.0.0.1', resolve));
    const resetUrl = `http://127.0.0.1:${(resetter.address() as AddressInfo).port}`;
    const defs = await definitionsFor(FIXTURE, upstream.url, extraApps(upstream.url, resetUrl));
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({
      DEFINITIONS_DIR: defs.dir,
      EGRESS_ALLOW: '127.0.0.1/32',
      // Long enough for 50 concurrent runs on a busy 2-core machine; the timeout case below waits longer than this.
      OUTBOUND_HEADERS_TIMEOUT_MS: '2000',
      TOKEN_RETRY_ATTEMPTS: '3',
      TOKEN_RETRY_DELAY_MS: '5',
      TOKEN_RETRY_BUDGET_MS: '5000',
    });
    for (const app of ['crm', 'vault', 'flaky', 'walled']) {
      await call(gw, 'PUT', `/v2/apps/${app}/configuration`, { body: { clientId: 'crm-client', clientSecret: 'crm-secret' } });
    }
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await new Promise<void>((resolve) => resetter.close(() => resolve()));
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  function crmAccepting(): void {
    upstream.on('GET /crm/contacts', (req) => (/^Bearer fresh-\d+$/.test(String(req.headers.authorization)) ? { body: { contacts: [{ id: 'c1' }] } } : { status: 401, body: {} }));
  }

  /** A token endpoint answering `failures` in turn, then tokens. */
  function tokenEndpoint(route: string, failures: Reply[], delayMs = 0): void {
    let calls = 0;
    let issued = 0;
    upstream.on(route, () => {
      const failure = failures[calls++];
      if (failure) return { ...failure, ...(delayMs ? { delayMs } : {}) };
      return { body: { access_token: `fresh-${++issued}`, expires_in: 3600 }, ...(delayMs ? { delayMs } : {}) };
    });
  }

  for (const [what, failure] of [
    ['500', { status: 500, body: { error: 'server_error' } }],
    ['503', { status: 503, body: 'down for maintenance' }],
    ['429 without Retry-After', { status: 429, body: {} }],
  ] as const) {
    it(`retries a ${what} from the token endpoint and the run succeeds`, async () => {
      crmAccepting();
      tokenEndpoint('POST /oauth/token', [failure, failure]);
      const connectionId = await connect(expired);
      const answer = await run(connectionId);
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.include({ success: true, data: [{ id: 'c1' }] });
      expect(upstream.calls('POST /oauth/token')).to.have.length(3);
      expect(await statusOf(connectionId)).to.equal('active');
    });
  }

  it('answers 503 AUTH_PROVIDER_UNAVAILABLE when every attempt fails, keeps the connection active, and the next run tries again', async () => {
    crmAccepting();
    const down = { status: 503, body: { error: 'temporarily_unavailable' } };
    tokenEndpoint('POST /oauth/token', [down, down, down]);
    const connectionId = await connect(expired);
    const failed = await run(connectionId);
    expect(failed.status).to.equal(503);
    expect(failed.body.success).to.equal(false);
    expect(failed.body.error.code).to.equal('AUTH_PROVIDER_UNAVAILABLE');
    expect(failed.body.error.message).to.include(connectionId);
    expect(failed.body.error.message).to.match(/the token endpoint 127\.0\.0\.1:\d+ is unavailable \(HTTP 503 temporarily_unavailable\) after 3 attempts/);
    expect(failed.body.error.message).not.to.match(/authorize/i);
    expect(upstream.calls('POST /oauth/token')).to.have.length(3);
    expect(await statusOf(connectionId)).to.equal('active');

    const next = await run(connectionId);
    expect(next.status).to.equal(200);
    expect(upstream.calls('POST /oauth/token')).to.have.length(4);
    expect(await statusOf(connectionId)).to.equal('active');
  });

  it('honours a short Retry-After, and answers a long one at once with Retry-After', async () => {
    crmAccepting();
    tokenEndpoint('POST /oauth/token', [{ status: 429, headers: { 'retry-after': '0' }, body: {} }]);
    const quick = await connect(expired);
    expect((await run(quick)).status).to.equal(200);
    expect(upstream.calls('POST /oauth/token')).to.have.length(2);

    upstream.reset();
    crmAccepting();
    tokenEndpoint('POST /oauth/token', [{ status: 503, headers: { 'retry-after': '120' }, body: {} }]);
    const slow = await connect(expired);
    const answer = await run(slow);
    expect(answer.status).to.equal(503);
    expect(answer.body.error.code).to.equal('AUTH_PROVIDER_UNAVAILABLE');
    expect(answer.headers.get('retry-after')).to.equal('120');
    expect(upstream.calls('POST /oauth/token')).to.have.length(1);
    expect(await statusOf(slow)).to.equal('active');
  });

  it('treats a token endpoint that times out as unavailable, not as a lost grant', async () => {
    crmAccepting();
    upstream.on('POST /oauth/token', () => ({ delayMs: 4_000, body: { access_token: 'fresh-late' } }));
    const connectionId = await connect(expired);
    const answer = await run(connectionId);
    expect(answer.status).to.equal(503);
    expect(answer.body.error.code).to.equal('AUTH_PROVIDER_UNAVAILABLE');
    expect(answer.body.error.message).to.include('OUTBOUND_HEADERS_TIMEOUT_MS');
    expect(await statusOf(connectionId)).to.equal('active');
  });

  it('treats a token endpoint that resets the connection as unavailable', async () => {
    crmAccepting();
    resets = 0;
    const connectionId = await connect(expired, 'flaky');
    const answer = await run(connectionId, 'flaky');
    expect(answer.status).to.equal(503);
    expect(answer.body.error.code).to.equal('AUTH_PROVIDER_UNAVAILABLE');
    expect(resets).to.equal(3);
    expect(await statusOf(connectionId)).to.equal('active');
  });

  it('answers an egress refusal of the token endpoint as EGRESS_DENIED, without retrying or stranding the connection', async () => {
    const connectionId = await connect(expired, 'walled');
    const answer = await run(connectionId, 'walled');
    expect(answer.status).to.equal(403);
    expect(answer.body.error.code).to.equal('EGRESS_DENIED');
    expect(await statusOf(connectionId)).to.equal('active');
  });

  it('answers another refusal (invalid_request) as TOKEN_EXCHANGE_FAILED without stranding the connection', async () => {
    crmAccepting();
    tokenEndpoint('POST /oauth/token', [{ status: 400, body: { error: 'invalid_request' } }]);
    const connectionId = await connect(expired);
    const answer = await run(connectionId);
    expect(answer.status).to.equal(502);
    expect(answer.body.error.code).to.equal('TOKEN_EXCHANGE_FAILED');
    expect(answer.body.error.message).to.include('invalid_request');
    expect(upstream.calls('POST /oauth/token')).to.have.length(1);
    expect(await statusOf(connectionId)).to.equal('active');
  });

  for (const code of ['invalid_grant', 'invalid_client', 'unauthorized_client']) {
    it(`marks the connection for re-authorization on ${code}, without retrying`, async () => {
      crmAccepting();
      tokenEndpoint('POST /oauth/token', [{ status: 400, body: { error: code } }]);
      const connectionId = await connect(expired);
      const answer = await run(connectionId);
      expect(answer.status).to.equal(409);
      expect(answer.body.error.code).to.equal('AUTH_REFRESH_FAILED');
      expect(answer.body.error.message).to.include(code);
      expect(upstream.calls('POST /oauth/token')).to.have.length(1);
      expect(await statusOf(connectionId)).to.equal('needs_reauthorization');
    });
  }

  it("marks the connection for re-authorization on an error the auth definition declares (grantRevokedErrors)", async () => {
    crmAccepting();
    tokenEndpoint('POST /vault/token', [{ status: 401, body: { error: 'token_revoked' } }]);
    const connectionId = await connect(expired, 'vault');
    const answer = await run(connectionId, 'vault');
    expect(answer.status).to.equal(409);
    expect(answer.body.error.code).to.equal('AUTH_REFRESH_FAILED');
    expect(await statusOf(connectionId)).to.equal('needs_reauthorization');
  });

  it('makes one token call for 50 concurrent runs, retries included', async () => {
    crmAccepting();
    tokenEndpoint('POST /oauth/token', [{ status: 503, body: {} }], 200);
    const connectionId = await connect(expired);
    const answers = await Promise.all(Array.from({ length: 50 }, () => run(connectionId)));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(200));
    // One renewal: its failed first attempt and its retry.
    expect(upstream.calls('POST /oauth/token')).to.have.length(2);

    upstream.reset();
    crmAccepting();
    // Each failure takes a while, so that all 50 runs join the one renewal before it gives up (a run arriving after it would rightly try again).
    upstream.on('POST /oauth/token', () => ({ status: 503, body: {}, delayMs: 300 }));
    const downId = await connect(expired);
    const down = await Promise.all(Array.from({ length: 50 }, () => run(downId)));
    expect(down.map((a) => a.body.error?.code)).to.deep.equal(Array(50).fill('AUTH_PROVIDER_UNAVAILABLE'));
    expect(upstream.calls('POST /oauth/token')).to.have.length(3);
    expect(await statusOf(downId)).to.equal('active');
  });

  describe('client credentials', () => {
    const machineConnection = async (clientId = 'm-client', clientSecret = 'm-secret') =>
      (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'machine', credentials: { clientId, clientSecret } } })).body.data.id as string;
    const runJobs = (connectionId: string) => call(gw, 'POST', '/v2/universal/apps/machine/actions/list-jobs/run', { body: { connectionId } });
    function machine(): void {
      upstream.on('POST /machine/token', (req) =>
        req.headers.authorization === `Basic ${Buffer.from('m-client:m-secret').toString('base64')}`
          ? { body: { access_token: 'machine-token', expires_in: 3600 } }
          : { status: 401, body: { error: 'invalid_client' } },
      );
      upstream.on('GET /machine/jobs', (req) => (req.headers.authorization === 'Bearer machine-token' ? { body: { jobs: [{ id: 'j1' }] } } : { status: 401, body: {} }));
    }

    it('keeps the connection active when the first token call fails transiently', async () => {
      machine();
      const connectionId = await machineConnection();
      upstream.on('POST /machine/token', () => ({ status: 502, body: {} }));
      const failed = await runJobs(connectionId);
      expect(failed.status).to.equal(503);
      expect(failed.body.error.code).to.equal('AUTH_PROVIDER_UNAVAILABLE');
      expect(await statusOf(connectionId)).to.equal('active');
      machine();
      expect((await runJobs(connectionId)).body).to.deep.include({ success: true, data: [{ id: 'j1' }] });
    });

    it('says the client credentials were refused and to PATCH new ones, never to authorize in a browser', async () => {
      machine();
      const connectionId = await machineConnection('m-client', 'wrong-secret');
      const refused = await runJobs(connectionId);
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('AUTH_REFRESH_FAILED');
      expect(refused.body.error.message).to.include('client credentials');
      expect(refused.body.error.message).to.include(`PATCH /v2/connections/${connectionId}`);
      expect(refused.body.error.message).not.to.match(/authoriz|browser/i);
      const next = await runJobs(connectionId);
      expect(next.status).to.equal(409);
      expect(next.body.error.code).to.equal('CONNECTION_NEEDS_REAUTHORIZATION');
      expect(next.body.error.message).to.include(`PATCH /v2/connections/${connectionId}`);
      expect(next.body.error.message).not.to.match(/authoriz|browser/i);

      const patched = await call(gw, 'PATCH', `/v2/connections/${connectionId}`, { body: { credentials: { clientId: 'm-client', clientSecret: 'm-secret' } } });
      expect(patched.status).to.equal(200);
      expect(patched.body.data.status).to.equal('active');
      expect(JSON.stringify(patched.body)).not.to.include('m-secret');
      expect((await runJobs(connectionId)).body).to.deep.include({ success: true, data: [{ id: 'j1' }] });
    });
  });
});
