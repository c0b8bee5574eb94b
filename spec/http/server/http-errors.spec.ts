import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../engine/config/config.ts';
import { createKeyring } from '../../../engine/platform/crypto/keyring.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/index.ts';
import { createApp } from '../../../engine/http/server/app.ts';
import { tenantRunServices } from '../../../engine/core/run/tenant-run-services.ts';
import { DEFAULT_RUN_SETTINGS } from '../../../engine/core/run/run-services.ts';
import { createConfiguredHttpClient } from '../../../engine/platform/outbound/index.ts';
import { openStore } from '../../../engine/platform/store/index.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

describe('HTTP basics', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.stop();
  });

  it('GET /health answers 200 {status: ok}', async () => {
    const { status, body } = await call(gw, 'GET', '/health', { auth: null });
    expect(status).to.equal(200);
    expect(body).to.deep.equal({ status: 'ok' });
  });

  it('GET /ready answers 200 when the store is reachable', async () => {
    const { status, body } = await call(gw, 'GET', '/ready', { auth: null });
    expect(status).to.equal(200);
    expect(body.status).to.equal('ready');
    expect(body.checks.store).to.equal('ok');
  });

  it('answers 404 NOT_FOUND for an unknown route', async () => {
    const { status, body } = await call(gw, 'GET', '/v1/nothing-here');
    expect(status).to.equal(404);
    expect(body).to.deep.equal({ success: false, error: { code: 'NOT_FOUND', message: 'no route for GET /v1/nothing-here' } });
  });

  it('answers 405 METHOD_NOT_ALLOWED with Allow for a known path', async () => {
    const { status, body, headers } = await call(gw, 'DELETE', '/v1/users');
    expect(status).to.equal(405);
    expect(body.error.code).to.equal('METHOD_NOT_ALLOWED');
    expect(headers.get('allow')).to.include('GET').and.to.include('POST');
  });

  it('answers 400 INVALID_JSON for a malformed body', async () => {
    const { status, body } = await call(gw, 'POST', '/v1/users', { body: '{"name": ' });
    expect(status).to.equal(400);
    expect(body.success).to.equal(false);
    expect(body.error.code).to.equal('INVALID_JSON');
    expect(body.error.message).to.match(/^request body is not valid JSON/);
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    const { status, body } = await call(gw, 'POST', '/v1/users', { body: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(status).to.equal(415);
    expect(body.error).to.deep.equal({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'request bodies must be application/json (got application/x-www-form-urlencoded)' });
  });

  it('answers 413 PAYLOAD_TOO_LARGE over 1 MiB', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    const { status, body } = await call(gw, 'POST', '/v1/users', { body: big });
    expect(status).to.equal(413);
    expect(body.error).to.deep.equal({ code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds the limit of 1048576 bytes' });
  });

  it('answers 400 VALIDATION_ERROR naming the field and the rule', async () => {
    const { status, body } = await call(gw, 'POST', '/v1/users', { body: { email: 'not-an-email', isTestUser: 'yes', nickname: 'x' } });
    expect(status).to.equal(400);
    expect(body.error.code).to.equal('VALIDATION_ERROR');
    expect(body.error.message).to.include('email: must be a valid email');
    expect(body.error.message).to.include('isTestUser: must be a boolean');
    expect(body.error.message).to.include('nickname: is not a known field');
    expect(body.error.details.problems).to.deep.include({ field: 'nickname', rule: 'additionalProperties', message: 'is not a known field' });
  });

  it('keeps a sane X-Request-Id and replaces one that is not', async () => {
    const kept = await call(gw, 'GET', '/health', { headers: { 'X-Request-Id': 'abc-123.def' } });
    expect(kept.headers.get('x-request-id')).to.equal('abc-123.def');
    const replaced = await call(gw, 'GET', '/health', { headers: { 'X-Request-Id': 'a'.repeat(300) } });
    expect(replaced.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const generated = await call(gw, 'GET', '/v1/nope');
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('logs method, path, status, duration and request id as JSON', async () => {
    await call(gw, 'GET', '/health', { headers: { 'X-Request-Id': 'log-line-check' } });
    const line = gw
      .logs()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.reqId === 'log-line-check');
    expect(line).to.include({ method: 'GET', path: '/health', status: 200, msg: 'request' });
    expect(line.durationMs).to.be.a('number');
  });
});

describe('an internal failure', () => {
  it('answers 500 INTERNAL_ERROR with no detail, and logs the detail', async () => {
    const { dir, cleanup } = await tempDir();
    const store = await openStore({ dataDir: dir, mongodbUri: undefined, pgliteTemplateDir: process.env.PGLITE_TEMPLATE_DIR });
    const broken = Object.create(store);
    const capture = captureLogs();
    const keyring = createKeyring([randomBytes(32).toString('base64')]);
    const outbound = createConfiguredHttpClient(loadConfig({}));
    const parts = { config: loadConfig({ DATA_DIR: dir }), store: broken, logger: capture.logger, readiness: [], keyring, definitions: new DefinitionsRegistry(dir, capture.logger), http: outbound };
    const app = createApp({ ...parts, run: tenantRunServices(parts, { http: outbound, settings: DEFAULT_RUN_SETTINGS }) });
    const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      // The key is valid, then reading members fails inside the handler.
      const { issueApiKey } = await import('../../../engine/tenancy/api-keys/api-keys.ts');
      const { key } = await issueApiKey(store, { companyId: 'cmp_x', userId: 'usr_x' }, 't');
      Object.defineProperty(broken, 'members', { value: { find: async () => { throw new Error('disk on fire at /secret/path'); } } });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { status, body } = await call({ url, apiKey: key }, 'GET', '/v1/users');
      expect(status).to.equal(500);
      expect(body).to.deep.equal({
        success: false,
        error: { code: 'INTERNAL_ERROR', message: 'the gateway failed to handle this request; the request id identifies it in the logs' },
      });
      expect(JSON.stringify(body)).not.to.include('disk on fire');
      expect(capture.text()).to.include('disk on fire');
    } finally {
      server.close();
      await store.close();
      await cleanup();
    }
  });
});
