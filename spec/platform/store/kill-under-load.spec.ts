import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { call } from '../../helpers/gateway.ts';
import { freshDatabase, postgresUnavailableReason } from '../../helpers/postgres.ts';
import { killIfRunning, spawnGateway, type GatewayProcess } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const KEY = 'kill-under-load-key-0123456789';
const WRITERS = 4;

/**
 * kill -9 of the gateway while clients write: every write it acknowledged
 * (a 200 with the new end user's id) is there after the next start, on the
 * embedded store (PGlite writes each commit's log to its file before the
 * answer) and on PostgreSQL (the commit is the server's).
 */
const stores: { name: string; unavailable(): string | null; env(): Promise<{ env: Record<string, string>; dispose(): Promise<void> }> }[] = [
  {
    name: 'embedded (PGlite)',
    unavailable: () => null,
    async env() {
      const { dir, cleanup } = await tempDir();
      return { env: { DATA_DIR: dir }, dispose: cleanup };
    },
  },
  {
    name: 'PostgreSQL',
    unavailable: postgresUnavailableReason,
    async env() {
      const { dir, cleanup } = await tempDir();
      const database = await freshDatabase();
      return {
        env: { DATA_DIR: dir, DATABASE_URL: database.url, ENCRYPTION_KEY: randomBytes(32).toString('base64') },
        async dispose() {
          await cleanup();
          await database.drop();
        },
      };
    },
  },
];

for (const store of stores) {
  describe(`the gateway killed (-9) under write load: ${store.name}`, function () {
    this.timeout(240_000);
    let running: GatewayProcess | null = null;
    let dispose: () => Promise<void> = async () => {};
    before(function () {
      const reason = store.unavailable();
      if (reason) {
        console.log(`      SKIPPED: the kill -9 spec on ${store.name} did not run: ${reason}`);
        this.skip();
      }
    });
    after(async () => {
      await killIfRunning(running);
      await dispose();
    });

    it('loses none of the writes it acknowledged', async () => {
      const setup = await store.env();
      dispose = setup.dispose;
      const env = { PORT: '0', BOOTSTRAP_API_KEY: KEY, ...setup.env };
      running = await spawnGateway(env);
      const gateway = { url: running.url, apiKey: KEY };
      const acknowledged: string[] = [];
      let stop = false;
      let sent = 0;
      const writer = async () => {
        while (!stop) {
          const n = sent++;
          try {
            const r = await call(gateway, 'POST', '/v1/users', { body: { externalId: `load-${n}`, metadata: { n } } });
            if (r.status === 200) acknowledged.push(r.body.data.userId as string);
          } catch {
            return; // the connection died with the process
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, writer);
      // Kill once a good number of writes were acknowledged, with more in flight.
      while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 20));
      running.child.kill('SIGKILL');
      stop = true;
      await running.exited;
      await Promise.all(writers);
      const seen = acknowledged.length;

      running = await spawnGateway(env);
      const restarted = { url: running.url, apiKey: KEY };
      const stored = new Set<string>();
      for (let offset = 0; ; offset += 1000) {
        const page = await call(restarted, 'GET', `/v2/end-users?fields=id&limit=1000&offset=${offset}`);
        expect(page.status).to.equal(200);
        for (const u of page.body.data as { id: string }[]) stored.add(u.id);
        if (page.body.data.length < 1000) break;
      }
      const lost = acknowledged.filter((id) => !stored.has(id));
      expect(lost, `${lost.length} of ${seen} acknowledged writes lost`).to.deep.equal([]);
      expect(seen).to.be.greaterThan(59);
    });
  });
}
