import { expect } from 'chai';
import { watch } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { call } from '../../helpers/gateway.ts';
import { spawnGateway, type GatewayProcess, killIfRunning } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const KEY = 'compaction-kill-key-0123456789';
const ATTEMPTS = 5;

/**
 * A kill -9 in the middle of a compaction loses no acknowledged write: NeDB
 * rewrites into `<file>~` and renames it over the file only once it is
 * fsynced, so a kill before the rename leaves the old file whole (with every
 * acknowledged line, each fsynced when it was written), and the next start
 * reads the file, not the half-written copy.
 */
describe('the embedded store killed during a compaction', function () {
  this.timeout(180_000);
  let dir: string;
  let cleanup: () => Promise<void>;
  let running: GatewayProcess | null = null;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(async () => {
    await killIfRunning(running);
    running = null;
    await cleanup();
  });

  it('keeps every acknowledged update of an app configuration whose file was being rewritten when the process was killed', async () => {
    const storeDir = path.join(dir, 'store');
    const temp = path.join(storeDir, 'appConfigurations.db~');
    let killedMidCompaction = 0;
    let lastAcknowledged = -1;
    let sent = 0;
    for (let attempt = 0; attempt < ATTEMPTS && killedMidCompaction === 0; attempt++) {
      running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: KEY, STORE_COMPACTION_INTERVAL_MS: '100' }, 60_000);
      const gateway = running;
      const gw = { url: gateway.url, apiKey: KEY };
      if (lastAcknowledged >= 0) {
        // What the previous process acknowledged is there after its kill (the update in flight may have landed too).
        const { body } = await call(gw, 'GET', '/v2/apps/github/configuration');
        const stored = Number(String(body.data.clientId).replace('client-', ''));
        expect(stored, `stored ${body.data.clientId}, last acknowledged client-${lastAcknowledged}`).to.be.within(lastAcknowledged, sent - 1);
      }
      // Kill the moment NeDB starts a rewrite of this file (it creates `<file>~`), while updates keep coming.
      const watcher = watch(storeDir, (_event, name) => {
        if (name === 'appConfigurations.db~') gateway.child.kill('SIGKILL');
      });
      try {
        while (gateway.child.exitCode === null && gateway.child.signalCode === null) {
          const n = sent++;
          const answer = await call(gw, 'PUT', '/v2/apps/github/configuration', { body: { clientId: `client-${n}` } }).catch(() => null);
          if (answer?.status === 200) lastAcknowledged = n;
        }
      } finally {
        watcher.close();
      }
      await gateway.exited;
      // The half-written copy is still there: the kill came before the rename.
      if (await fs.access(temp).then(() => true, () => false)) killedMidCompaction++;
    }
    expect(killedMidCompaction, `no kill of ${ATTEMPTS} landed before a rewrite's rename`).to.equal(1);
    expect(lastAcknowledged).to.be.at.least(0);

    running = await spawnGateway({ PORT: '0', DATA_DIR: dir, BOOTSTRAP_API_KEY: KEY }, 60_000);
    const { status, body } = await call({ url: running.url, apiKey: KEY }, 'GET', '/v2/apps/github/configuration');
    expect(status).to.equal(200);
    const stored = Number(String(body.data.clientId).replace('client-', ''));
    expect(stored, `stored ${body.data.clientId}, last acknowledged client-${lastAcknowledged}`).to.be.within(lastAcknowledged, sent - 1);
    // The start compacted the file, over the copy the kill left: one line for the record, one per index.
    const lines = (await fs.readFile(path.join(storeDir, 'appConfigurations.db'), 'utf8')).split('\n').filter(Boolean);
    expect(lines.filter((line) => line.includes('"_id"'))).to.have.length(1);
  });
});
