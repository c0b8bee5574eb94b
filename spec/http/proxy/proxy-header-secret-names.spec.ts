import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { echoKeyInHeaderNames } from '../../helpers/header-name-echo.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { send, type ProxyAnswer } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');
const PAGE = 'https://app.example.com';
/** As found from outside; with capitals (the HTTP client reads header names lower-cased); with characters a name holds only percent-encoded. */
const KEYS = ['upstream-secret-0123456789', 'Upstream-Secret-ABCdef9876', 'ek_live/7f3a+9c2b=1d'];

/** Every place of the answer's head a header name may show: the names themselves and Access-Control-Expose-Headers' list. */
function headText(answer: ProxyAnswer): string {
  return Object.entries(answer.headers)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join('\n')
    .toLowerCase();
}

describe("the proxy: a secret the app writes back in a header's NAME", function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let token: string;
  const company = new Map<string, string>();
  const endUsers = new Map<string, string>();

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    expect((await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: [PAGE], enabledApps: ['files'], endUserProxy: true } })).status).to.equal(200);
    const ada = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId as string;
    token = (await call(gw, 'GET', `/v1/users/${ada}/token`)).body.token;
    for (const apiKey of KEYS) {
      company.set(apiKey, (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'files', credentials: { apiKey } } })).body.data.id);
      endUsers.set(apiKey, (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'files', credentials: { apiKey }, endUserId: ada } })).body.data.id);
    }
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => upstream.reset());

  for (const key of KEYS) {
    it(`drops the header, in any letter case, and keeps the others (${key})`, async () => {
      echoKeyInHeaderNames(upstream, 'GET /files/v1/echo');
      const answer = await send(gw, 'GET', `/v2/proxy/${company.get(key)}/echo`);
      expect(answer.status).to.equal(401);
      expect(upstream.calls('GET /files/v1/echo')[0]!.headers['x-api-key'], 'the app did get the key').to.equal(key);
      expect(answer.headers['x-plain']).to.equal('kept');
      expect(Object.keys(answer.headers).filter((name) => name.startsWith('x-echo-') || name.startsWith('x-pct-'))).to.deep.equal([]);
      for (const form of [key, encodeURIComponent(key)]) expect(headText(answer), form).not.to.include(form.toLowerCase());
    });
  }

  it("to a page of an allowed origin (the end-user proxy): not in the headers, nor in Access-Control-Expose-Headers' names", async () => {
    const key = KEYS[1]!;
    echoKeyInHeaderNames(upstream, 'GET /files/v1/echo');
    const answer = await send(gw, 'GET', `/v2/end-user/proxy/${endUsers.get(key)}/echo`, { auth: token, headers: { origin: PAGE } });
    expect(answer.status).to.equal(401);
    expect(answer.headers['access-control-allow-origin']).to.equal(PAGE);
    expect(String(answer.headers['access-control-expose-headers'])).to.include('x-plain');
    expect(answer.headers['x-plain']).to.equal('kept');
    for (const form of [key, encodeURIComponent(key)]) expect(headText(answer), form).not.to.include(form.toLowerCase());
  });
});
