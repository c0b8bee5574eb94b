import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createKeyring } from '../../engine/platform/crypto/keyring.ts';
import { call, startTestGateway } from '../helpers/gateway.ts';
import { runCommand, spawnGateway, type GatewayProcess, killIfRunning } from '../helpers/process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
const idOf = (key: string) => createKeyring([key]).current.id;
const API_KEY = 'rotation-test-key-0123456789';

describe('encryption key rotation', function () {
  this.timeout(240_000);
  let dir: string;
  let cleanup: () => Promise<void>;
  let running: GatewayProcess | null = null;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(async () => {
    await killIfRunning(running);
    running = null;
    await cleanup();
  });

  const start = async (encryptionKey: string) =>
    (running = await spawnGateway({ PORT: '0', DATA_DIR: dir, ENCRYPTION_KEY: encryptionKey, BOOTSTRAP_API_KEY: API_KEY }));
  const stop = async () => {
    running!.child.kill('SIGTERM');
    expect(await running!.exited).to.equal(0);
  };
  const admin = (encryptionKey: string, ...argv: string[]) =>
    runCommand(['--import', 'tsx', 'scripts/admin.ts', ...argv], { DATA_DIR: dir, ENCRYPTION_KEY: encryptionKey });
  const storeAConnection = async (url: string, apiKey = API_KEY) => {
    const created = await call({ url, apiKey }, 'POST', '/v2/connections', { body: { appSlug: 'demo-todos', credentials: { token: 'demo-token' } } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
  };

  it('refuses credentials:reencrypt through a running gateway whose keys differ from the tool\'s: exit 1, the mismatch named by key id, no key printed', async () => {
    await start(OLD);
    await storeAConnection(running!.url);
    const result = await admin(`${NEW},${OLD}`, 'credentials:reencrypt');
    expect(result.code, result.stdout + result.stderr).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.include('ENCRYPTION_KEY differs from the running gateway');
    expect(result.stderr).to.include(`${idOf(NEW)}, ${idOf(OLD)}`).and.to.include(`gateway: ${idOf(OLD)}`);
    for (const key of [OLD, NEW]) expect(result.stdout + result.stderr).not.to.include(key);
    // Nothing was re-sealed: the running gateway still reads everything.
    expect((await call({ url: running!.url, apiKey: API_KEY }, 'GET', '/ready')).status).to.equal(200);
  });

  it('the README order works as typed: restart with "new,old", reencrypt with "new,old", restart with "new" alone: /ready 200 and the signing key still signs', async () => {
    await start(OLD);
    await storeAConnection(running!.url);
    await stop();
    await start(`${NEW},${OLD}`);
    const result = await admin(`${NEW},${OLD}`, 'credentials:reencrypt', '--json');
    expect(result.code, result.stderr).to.equal(0);
    const report = JSON.parse(result.stdout);
    expect(report).to.include({ newestKey: idOf(NEW), 'reencrypted.connections': 1, 'reencrypted.signingKeys': 1, unreadable: null });
    await stop();
    await start(NEW);
    const gw = { url: running!.url, apiKey: API_KEY };
    expect((await call(gw, 'GET', '/ready')).status).to.equal(200);
    const user = await call(gw, 'POST', '/v1/users', { body: { externalId: 'rotated' } });
    expect((await call(gw, 'GET', `/v1/users/${user.body.data.userId}/token`)).status).to.equal(200);
  });

  it('/ready answers 503 NOT_READY naming the reason when the stored secrets and signing keys cannot be opened with the configured keys', async () => {
    const first = await startTestGateway({ DATA_DIR: dir, ENCRYPTION_KEY: OLD });
    await storeAConnection(first.url, first.apiKey);
    await first.stop({ keepData: true });
    const stranded = await startTestGateway({ DATA_DIR: dir, ENCRYPTION_KEY: NEW });
    try {
      const ready = await call(stranded, 'GET', '/ready', { auth: null });
      expect(ready.status).to.equal(503);
      expect(ready.body.error.code).to.equal('NOT_READY');
      expect(ready.body.error.message).to.match(/^encryption keys: /);
      expect(ready.body.error.message).to.include(`not among the configured ENCRYPTION_KEY values (${idOf(NEW)})`);
      expect(ready.body.error.message).to.match(/signing key/).and.to.match(/connection/);
      for (const key of [OLD, NEW]) expect(ready.body.error.message).not.to.include(key);
    } finally {
      await stranded.stop({ keepData: true });
    }
  });
});
