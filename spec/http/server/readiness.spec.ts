import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../../engine/config/config.ts';
import { startGateway, type RunningGateway } from '../../../engine/gateway.ts';
import { READY_CHECK_TIMEOUT_MS } from '../../../engine/http/server/health-routes.ts';
import type { Store } from '../../../engine/platform/store/index.ts';
import { call, pgliteTemplate, startTestGateway, TEST_API_KEY, type TestGateway } from '../../helpers/gateway.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * GET /ready, one condition at a time. The encryption-keys condition (signing keys and stored secrets that the
 * configured ENCRYPTION_KEY cannot open) is shown in spec/admin/key-rotation.spec.ts; definitions that fail
 * after a start in spec/core/definitions/hot-reload.spec.ts.
 */
describe('GET /ready: 503 NOT_READY with the reason', function () {
  this.timeout(30_000);
  let gw: TestGateway | null = null;
  afterEach(async () => {
    await gw?.stop();
    gw = null;
  });

  it('the embedded store unreachable: its folder gone (a volume unmounted) answers "store: unreachable", and 200 again once it is back', async () => {
    gw = await startTestGateway();
    expect((await call(gw, 'GET', '/ready', { auth: null })).status).to.equal(200);
    const storeDir = path.join(gw.dataDir, 'pglite');
    const moved = path.join(gw.dataDir, 'store-unmounted');
    await fs.rename(storeDir, moved);
    const ready = await call(gw, 'GET', '/ready', { auth: null });
    expect(ready.status).to.equal(503);
    expect(ready.body).to.deep.equal({
      success: false,
      error: { code: 'NOT_READY', message: `store: unreachable (ENOENT: no such file or directory, access '${storeDir}')` },
    });
    // Liveness is not readiness: the process still answers.
    expect((await call(gw, 'GET', '/health', { auth: null })).status).to.equal(200);
    await fs.rename(moved, storeDir);
    expect((await call(gw, 'GET', '/ready', { auth: null })).status).to.equal(200);
  });

  describe('a store whose ping fails or hangs (MongoDB down or partitioned)', () => {
    let dir: string;
    let cleanup: () => Promise<void>;
    let running: RunningGateway | null = null;
    beforeEach(async () => ({ dir, cleanup } = await tempDir()));
    afterEach(async () => {
      await running?.stop();
      running = null;
      await cleanup();
    });

    async function withPing(ping: () => Promise<void>) {
      const config = loadConfig({ ...pgliteTemplate(), PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, BOOTSTRAP_API_KEY: TEST_API_KEY });
      running = await startGateway(config, captureLogs().logger, { store: (store: Store) => ({ ...store, ping }) });
      return { url: `http://127.0.0.1:${running.port}`, apiKey: TEST_API_KEY };
    }

    it('a failing ping answers its error', async () => {
      const target = await withPing(async () => {
        throw new Error('connection <monitor> to 10.0.0.9:27017 closed');
      });
      const ready = await call(target, 'GET', '/ready', { auth: null });
      expect(ready.status).to.equal(503);
      expect(ready.body.error).to.deep.equal({ code: 'NOT_READY', message: 'store: unreachable (connection <monitor> to 10.0.0.9:27017 closed)' });
    });

    it(`a ping that never answers fails after ${READY_CHECK_TIMEOUT_MS} ms, not when the prober gives up`, async () => {
      const target = await withPing(() => new Promise(() => {}));
      const sent = Date.now();
      const ready = await call(target, 'GET', '/ready', { auth: null });
      expect(ready.status).to.equal(503);
      expect(ready.body.error).to.deep.equal({ code: 'NOT_READY', message: `store: no answer within ${READY_CHECK_TIMEOUT_MS} ms` });
      expect(Date.now() - sent).to.be.at.least(READY_CHECK_TIMEOUT_MS - 50);
    });
  });

  it('no definitions snapshot: definitions that fail to load at start answer "definitions: …" with the count, never the folder', async () => {
    const defs = await tempDir();
    try {
      await fs.mkdir(path.join(defs.dir, 'broken', 'v1'), { recursive: true });
      await fs.writeFile(path.join(defs.dir, 'broken', 'v1', 'api.yaml'), 'name: [unclosed\n');
      gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir });
      const ready = await call(gw, 'GET', '/ready', { auth: null });
      expect(ready.status).to.equal(503);
      expect(ready.body.error.code).to.equal('NOT_READY');
      // /ready answers anyone: the count, not where the definitions live on the host (the status route, behind a key, says more).
      expect(ready.body.error.message).to.equal('definitions: 1 problem in the app definitions (see GET /v2/definitions/status or npm run validate)');
      expect(JSON.stringify(ready.body)).not.to.include(defs.dir);
      expect(JSON.stringify(ready.body)).not.to.include(path.basename(defs.dir));
      expect(ready.body.error.message, 'the store is fine: only the failing check is named').not.to.include('store:');
    } finally {
      // Stopped before its folder goes: the watcher refuses to unsubscribe from a folder that is gone.
      await gw?.stop();
      gw = null;
      await defs.cleanup();
    }
  });
});
