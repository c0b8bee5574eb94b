import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { EXAMPLE_SERVER, startExampleServer, type ExampleServer } from '../../helpers/example-server.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('examples/embedding/server.mjs: the example customer backend, run as the docs type it', function () {
  this.timeout(30_000);
  let gw: TestGateway;
  let example: ExampleServer;
  before(async () => {
    gw = await startTestGateway();
    example = await startExampleServer({ GATEWAY_URL: `${gw.url}/`, GATEWAY_API_KEY: gw.apiKey, DEMO_USER_ID: 'customer-user-7', DEMO_USER_NAME: 'Ada' });
  });
  after(async () => {
    await example?.stop();
    await gw?.stop();
  });

  it('refuses to start without GATEWAY_URL and GATEWAY_API_KEY, saying which to set (exit 2)', () => {
    const run = spawnSync(process.execPath, [EXAMPLE_SERVER], { env: { PATH: process.env.PATH ?? '', GATEWAY_URL: 'http://127.0.0.1:1' }, encoding: 'utf8', timeout: 10_000 });
    expect(run.status).to.equal(2);
    expect(run.stderr).to.include('Set GATEWAY_URL (e.g. http://localhost:8080) and GATEWAY_API_KEY (your API key)');
  });

  it('says where its page is and which origin to allow', () => {
    expect(example.output()).to.include(`Example customer page: ${example.origin}/ (gateway ${gw.url})`);
    expect(example.output()).to.include(`Allow this origin once: PUT ${gw.url}/v2/embedding {"allowedOrigins": ["${example.origin}"]`);
  });

  it('serves the page with the gateway URL filled in: the SDK script from the gateway, no API key', async () => {
    const page = await fetch(`${example.origin}/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).to.include(`<script src="${gw.url}/sdk/connect.js"></script>`);
    expect(html).to.include(`<meta name="gateway-url" content="${gw.url}">`);
    expect(html).not.to.include('{{GATEWAY_URL}}').and.not.to.include(gw.apiKey);
    expect((await fetch(`${example.origin}/elsewhere`)).status).to.equal(404);
  });

  it("answers the signed-in person's end-user token (created once, found after), not cached and not open to other origins", async () => {
    const first = await fetch(`${example.origin}/api/gateway-token`, { headers: { Origin: 'https://evil.test' } });
    expect(first.status).to.equal(200);
    expect(first.headers.get('cache-control')).to.equal('no-store');
    expect(first.headers.get('access-control-allow-origin')).to.equal(null);
    const { token } = (await first.json()) as { token: string };
    const second = ((await (await fetch(`${example.origin}/api/gateway-token`)).json()) as { token: string }).token;
    // Both tokens are the same end user's, made from DEMO_USER_ID: one end user, not two.
    const users = await call(gw, 'GET', `/v2/end-users?where=${encodeURIComponent('externalId==customer-user-7')}`);
    expect(users.body.data).to.have.length(1);
    expect(users.body.data[0]).to.include({ name: 'Ada' });
    for (const bearer of [token, second]) {
      const own = await call({ url: gw.url, apiKey: bearer }, 'GET', '/v2/end-user/connections');
      expect(own.status).to.equal(200);
    }
  });

  it('answers 502 without the API key when the gateway refuses it', async () => {
    const wrong = await startExampleServer({ GATEWAY_URL: gw.url, GATEWAY_API_KEY: 'not-the-key-0123456789' });
    try {
      const answer = await fetch(`${wrong.origin}/api/gateway-token`);
      expect(answer.status).to.equal(502);
      const text = await answer.text();
      expect(JSON.parse(text)).to.deep.equal({ error: 'the gateway did not give a token; see the server log' });
      expect(wrong.output()).to.include('POST /v1/users answered 401');
      expect(wrong.output()).not.to.include('not-the-key-0123456789');
    } finally {
      await wrong.stop();
    }
  });
});
