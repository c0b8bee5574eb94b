import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { echoKeyInHeaderNames } from '../../helpers/header-name-echo.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/redaction');
const MARK = '[redacted]';
/** As found from outside; with capitals (the HTTP client reads header names lower-cased); with characters a name holds only percent-encoded. */
const KEYS = ['upstream-secret-0123456789', 'Upstream-Secret-ABCdef9876', 'ek_live/7f3a+9c2b=1d'];

describe("a run: a credential the app writes back in a header's NAME (meta.response.headers)", function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  const connections = new Map<string, string>();

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    for (const key of KEYS) connections.set(key, (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'echo', credentials: { apiKey: key } } })).body.data.id);
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanup();
  });
  beforeEach(() => upstream.reset());

  for (const key of KEYS) {
    it(`never answers the key in a name, in any letter case: the name keeps the header with ${MARK} in the key's place (${key})`, async () => {
      echoKeyInHeaderNames(upstream, 'GET /echo/whoami');
      const { status, body } = await documentedCall(gw, 'POST', '/v2/universal/apps/echo/actions/whoami/run', { body: { connectionId: connections.get(key), arguments: {} } });
      expect(status).to.equal(200);
      expect(upstream.calls('GET /echo/whoami')[0]!.headers['x-api-key'], 'the app did get the key').to.equal(key);
      expect(body.meta.response.status).to.equal(401);
      const headers = body.meta.response.headers as Record<string, string>;
      expect(headers['x-plain']).to.equal('kept');
      expect(headers[`x-pct-${MARK}`]).to.equal('1');
      if (!key.includes('/')) expect(headers[`x-echo-${MARK}`]).to.equal('1');
      const answered = JSON.stringify(body).toLowerCase();
      for (const form of [key, encodeURIComponent(key)]) expect(answered, form).not.to.include(form.toLowerCase());
    });
  }

  it("a mapping that copies the headers into data copies them redacted: the key is in no row's names either", async () => {
    const key = KEYS[1]!;
    echoKeyInHeaderNames(upstream, 'GET /echo/whoami');
    const { status, body } = await documentedCall(gw, 'POST', '/v2/universal/apps/echo/actions/headers/run', { body: { connectionId: connections.get(key), arguments: {} } });
    expect(status).to.equal(200);
    expect(body.data[0]['x-plain']).to.equal('kept');
    expect(body.data[0][`x-echo-${MARK}`]).to.equal('1');
    expect(JSON.stringify(body).toLowerCase()).not.to.include(key.toLowerCase());
  });
});
