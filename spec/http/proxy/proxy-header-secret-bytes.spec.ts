import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { headerEchoApp, type HeaderEchoApp } from '../../helpers/header-echo-app.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor } from '../../helpers/upstream.ts';
import { send } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/proxy');
/** A credential beyond ASCII, as an end user may set one: the gateway sends it in X-Api-Key as Latin-1 (é is the byte E9). */
const KEY = 'clé-secrète-0123456789';

describe('the proxy: a secret beyond ASCII that the app writes back in a header', function () {
  this.timeout(30_000);
  let app: HeaderEchoApp;
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let files: string;

  before(async () => {
    app = await headerEchoApp();
    const defs = await definitionsFor(FIXTURE, app.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    files = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'files', credentials: { apiKey: KEY } } })).body.data.id as string;
  });
  after(async () => {
    await gw.stop();
    await app.stop();
    await cleanup();
  });

  it('is [redacted] whether the app wrote it in UTF-8 or in the Latin-1 bytes it was sent', async () => {
    const answer = await send(gw, 'GET', `/v2/proxy/${files}/echo`);
    expect(answer.status).to.equal(401);
    expect(answer.headers['x-latin1']).to.equal('bad key [redacted]');
    // A header's bytes are read as Latin-1: the key's UTF-8 bytes read "clÃ©-secrÃ¨te-…", which the caller decodes back.
    expect(answer.headers['x-utf8']).to.equal('bad key [redacted]');
  });
});
