import { expect } from 'chai';
import path from 'node:path';
import { MIN_REDACTED_LENGTH } from '../../../engine/platform/secrets/redact.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/redaction');
const ORIGIN = 'https://app.customer.test';
/** With characters a query, a form and a JSON text each write their own way. */
const KEY = 'ek_live/7f3a+9c2b=1d';
const COMPANY_KEY = 'ck_live_5e6d7c8b9a';
const CLIENT_SECRET = 'oauthy-client-secret-4242';
const ACCESS_TOKEN = 'oauthy-access-token-9999';
const MARK = '[redacted]';

type Session = { url: string; apiKey: string };

/** An app that repeats the credential it was sent, in every way one does. */
function echoing(upstream: Upstream, status = 401) {
  upstream.on('GET /echo/whoami', (request) => {
    const key = String(request.headers['x-api-key'] ?? request.headers.authorization ?? '');
    return {
      status,
      headers: { 'x-echo': `got ${key}`, 'www-authenticate': `Key realm="echo", key="${key}"` },
      body: { error: `bad key ${key}`, code: 'bad_key', said: { [key]: [`query: ?key=${encodeURIComponent(key)}`] } },
    };
  });
}

describe('a credential the app repeats never leaves the gateway: every run endpoint redacts it', function () {
  this.timeout(60_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let ada: Session;
  let adaId: string;
  let adaConnection: string;
  let companyConnection: string;
  const answered = (body: unknown) => JSON.stringify(body);

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [ORIGIN], enabledApps: ['echo'] } })).status).to.equal(200);
    adaId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    ada = { url: gw.url, apiKey: (await call(gw, 'GET', `/v1/users/${adaId}/token`)).body.token };
    adaConnection = (await call(ada, 'POST', '/v2/end-user/connections', { body: { appSlug: 'echo', credentials: { apiKey: KEY } } })).body.data.id;
    companyConnection = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'echo', credentials: { apiKey: COMPANY_KEY } } })).body.data.id;
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => upstream.reset());

  it("the end-user run (the browser's): the app's 401 repeating the key, in its body, its headers and the app error, answers [redacted]", async () => {
    echoing(upstream);
    const { status, body } = await documentedCall(ada, 'POST', '/v2/end-user/apps/echo/actions/whoami/run', { body: { connectionId: adaConnection, arguments: {} } });
    expect(status, answered(body)).to.equal(200);
    expect(upstream.calls('GET /echo/whoami')[0]!.headers['x-api-key'], 'the app did get the key').to.equal(KEY);
    expect(body.success).to.equal(false);
    expect(body.meta.response.status).to.equal(401);
    expect(body.meta.response.body).to.deep.equal({ error: `bad key ${MARK}`, code: 'bad_key', said: { [MARK]: [`query: ?key=${MARK}`] } });
    expect(body.meta.response.headers['x-echo']).to.equal(`got ${MARK}`);
    expect(body.meta.response.headers['www-authenticate']).to.equal(`Key realm="echo", key="${MARK}"`);
    expect(body.meta.appError).to.deep.equal({ status: 401, code: 'bad_key', message: `bad key ${MARK}`, details: { said: { [MARK]: [`query: ?key=${MARK}`] } } });
    for (const form of [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1)]) expect(answered(body), form).not.to.include(form);
  });

  it('the universal run, on a body the gateway would copy into the answer as the app wrote it (1 KB and more), in plain, \\/ and \\u forms', async () => {
    const padding = 'x'.repeat(2048);
    const escapedSlash = KEY.replace('/', '\\/');
    const unicodeEscaped = COMPANY_KEY.replace('c', '\\u0063');
    upstream.on('GET /echo/whoami', () => ({
      status: 403,
      // The app's own spacing: a body copied as it came keeps it.
      body: `{ "error" : "bad key ${COMPANY_KEY}", "a": "${escapedSlash}", "b": "${unicodeEscaped}", "padding": "${padding}" }`,
    }));
    const { status, body } = await documentedCall(gw, 'POST', '/v2/universal/apps/echo/actions/whoami/run', { body: { connectionId: companyConnection, arguments: {} } });
    expect(status).to.equal(200);
    expect(body.meta.response.body).to.deep.equal({ error: `bad key ${MARK}`, a: KEY, b: MARK, padding });
    expect(answered(body)).not.to.include(COMPANY_KEY).and.not.to.include(unicodeEscaped);

    // Not this connection's key: the body is the app's, untouched, copied as it came (its spacing kept).
    const untouched = `{ "error" : "bad key nothing-secret-here", "padding": "${padding}" }`;
    upstream.on('GET /echo/whoami', () => ({ status: 403, body: untouched }));
    const raw = await fetch(`${gw.url}/v2/universal/apps/echo/actions/whoami/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ connectionId: companyConnection, arguments: {} }),
    });
    expect(await raw.text()).to.include(untouched);
  });

  it("an answer labelled text/html holding JSON as PHP and .NET write it (escapes mixed: \\/ with \\u002B) is redacted too", async () => {
    // PHP's json_encode writes / as \/ and sends text/html by default; .NET escapes + as \u002B: one string may mix them.
    const php = KEY.replace('/', '\\/');
    const mixed = php.replace('+', '\\u002B');
    const text = `{"error":"invalid key ${php}","net":"${mixed}","lower":"${mixed.replace('u002B', 'u002b')}"}`;
    upstream.on('GET /echo/whoami', () => ({ status: 401, headers: { 'content-type': 'text/html; charset=UTF-8' }, body: text }));
    const { status, body } = await documentedCall(ada, 'POST', '/v2/end-user/apps/echo/actions/whoami/run', { body: { connectionId: adaConnection, arguments: {} } });
    expect(status, answered(body)).to.equal(200);
    expect(body.meta.response.body).to.equal(`{"error":"invalid key ${MARK}","net":"${MARK}","lower":"${MARK}"}`);
    expect(answered(body)).not.to.include('7f3a');
  });

  it("the v1 installation run: the installation's connection's key is redacted", async () => {
    echoing(upstream, 400);
    const installation = (await call(gw, 'POST', '/v2/installations', { body: { endUserId: adaId, apps: [{ appSlug: 'echo', connectionId: adaConnection }] } })).body.data.id;
    const { status, body } = await documentedCall(ada, 'POST', '/v1/installation/apps/echo/published/action/whoami/run', { body: { installationId: installation, actionArguments: {} } });
    expect(status, answered(body)).to.equal(200);
    expect(body.meta.response.body.error).to.equal(`bad key ${MARK}`);
    expect(body.meta.appError.message).to.equal(`bad key ${MARK}`);
    expect(answered(body)).not.to.include(KEY).and.not.to.include(encodeURIComponent(KEY));
  });

  it("a lookup's failure (LOOKUP_FAILED carries the lookup's meta) is redacted too", async () => {
    echoing(upstream, 500);
    const { status, body } = await documentedCall(gw, 'POST', '/v2/universal/apps/echo/actions/pick/arguments/item/options', { body: { connectionId: companyConnection } });
    expect(status, answered(body)).to.equal(502);
    expect(body.error.code).to.equal('LOOKUP_FAILED');
    expect(answered(body)).to.include(MARK).and.not.to.include(COMPANY_KEY);
  });

  it("HTTP Basic: the password and the base64 pair the app was sent are redacted wherever it repeats them", async () => {
    const password = 'correct-horse-battery';
    const basic = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'echo', authId: 'basic', credentials: { user: 'ada@example.com', password } } })).body.data.id;
    const pair = Buffer.from(`ada@example.com:${password}`).toString('base64');
    upstream.on('GET /echo/whoami', (request) => ({ status: 401, body: { error: `refused ${request.headers.authorization}`, code: 'nope', said: { pair: Buffer.from(String(request.headers.authorization).slice(6), 'base64').toString() } } }));
    const { status, body } = await documentedCall(gw, 'POST', '/v2/universal/apps/echo/actions/whoami/run', { body: { connectionId: basic, arguments: {} } });
    expect(status).to.equal(200);
    expect(upstream.calls('GET /echo/whoami')[0]!.headers.authorization).to.equal(`Basic ${pair}`);
    expect(body.meta.response.body.error).to.equal(`refused ${MARK}`);
    // The user name is a secret of the connection too (an auth argument, kept sealed).
    expect(body.meta.response.body.said.pair).to.equal(`${MARK}:${MARK}`);
    expect(answered(body)).not.to.include(pair).and.not.to.include(password);
  });

  it("an OAuth 2.0 connection: its access token and the company's client secret are redacted", async () => {
    expect((await call(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'oauthy-client', clientSecret: CLIENT_SECRET } })).status).to.equal(200);
    const connection = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'oauthy', credentials: { accessToken: ACCESS_TOKEN, refreshToken: 'oauthy-refresh-token-1' } } })).body.data.id;
    upstream.on('GET /oauthy/me', (request) => ({ status: 200, body: { sent: request.headers.authorization, leaked: `client_secret=${CLIENT_SECRET}`, also: 'oauthy-refresh-token-1' } }));
    const { status, body } = await documentedCall(gw, 'POST', '/v2/universal/apps/oauthy/actions/me/run', { body: { connectionId: connection, arguments: {} } });
    expect(status, answered(body)).to.equal(200);
    expect(body.meta.response.body).to.deep.equal({ sent: MARK, leaked: `client_secret=${MARK}`, also: MARK });
    // The mapping copied the body into data: what it made of a secret is redacted there too.
    expect(body.data).to.deep.equal([{ sent: MARK, leaked: `client_secret=${MARK}`, also: MARK }]);
    for (const secret of [ACCESS_TOKEN, CLIENT_SECRET, 'oauthy-refresh-token-1']) expect(answered(body), secret).not.to.include(secret);
  });

  it(`leaves a value shorter than ${MIN_REDACTED_LENGTH} characters alone (it would match everywhere): the body is the app's`, async () => {
    const short = 'k'.repeat(MIN_REDACTED_LENGTH - 1);
    const weak = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'echo', credentials: { apiKey: short } } })).body.data.id;
    echoing(upstream);
    const { body } = await documentedCall(gw, 'POST', '/v2/universal/apps/echo/actions/whoami/run', { body: { connectionId: weak, arguments: {} } });
    expect(body.meta.response.body.error).to.equal(`bad key ${short}`);
  });

  it('a success that does not repeat a secret is answered exactly as the app sent it', async () => {
    upstream.on('GET /echo/whoami', () => ({ body: { items: [{ id: 'i1', name: 'one' }] }, headers: { 'x-plain': 'nothing here' } }));
    const { status, body } = await documentedCall(ada, 'POST', '/v2/end-user/apps/echo/actions/whoami/run', { body: { connectionId: adaConnection, arguments: {} } });
    expect(status).to.equal(200);
    expect(body.data).to.deep.equal([{ id: 'i1', name: 'one' }]);
    expect(body.meta.response.body).to.deep.equal({ items: [{ id: 'i1', name: 'one' }] });
    expect(body.meta.response.headers['x-plain']).to.equal('nothing here');
    expect(answered(body)).not.to.include(MARK);
  });
});
