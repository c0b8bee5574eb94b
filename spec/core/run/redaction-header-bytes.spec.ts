import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { headerEchoApp, type HeaderEchoApp } from '../../helpers/header-echo-app.ts';
import { documentedCall } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/redaction');
/** A credential beyond ASCII: the gateway sends it in X-Api-Key as Latin-1 (é is the byte E9). */
const KEY = 'clé-secrète-0123456789';

describe("a run: a credential beyond ASCII that the app writes back in a header of its answer (meta.response.headers)", function () {
  this.timeout(30_000);
  let app: HeaderEchoApp;
  let gw: TestGateway;
  let cleanup: () => Promise<void>;
  let connection: string;

  before(async () => {
    app = await headerEchoApp();
    const defs = await definitionsFor(FIXTURE, app.url);
    cleanup = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32' });
    connection = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'echo', credentials: { apiKey: KEY } } })).body.data.id as string;
  });
  after(async () => {
    await gw.stop();
    await app.stop();
    await cleanup();
  });

  it('is [redacted] whether the app wrote it in UTF-8 or in the Latin-1 bytes it was sent', async () => {
    const { status, body } = await documentedCall(gw, 'POST', '/v2/universal/apps/echo/actions/whoami/run', { body: { connectionId: connection, arguments: {} } });
    expect(status).to.equal(200);
    expect(body.meta.response.status).to.equal(401);
    expect(body.meta.response.headers['x-latin1']).to.equal('bad key [redacted]');
    // A header's bytes are read as Latin-1: the key's UTF-8 bytes read "clÃ©-secrÃ¨te-…", which the caller decodes back.
    expect(body.meta.response.headers['x-utf8']).to.equal('bad key [redacted]');
  });
});
