import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { killIfRunning, spawnGateway, type GatewayProcess } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const OPEN_PGLITE = path.join(ROOT, 'engine/platform/store/sql/open-pglite.ts');
/** What `npm run build` (and `npm start`'s prestart, run before the first test by spec/support/build-once.ts) makes. */
const SHIPPED_CLUSTER = path.join(ROOT, 'dist/pglite-cluster');

interface Opened {
  companies: number;
  /** How the database came to be at this open (undefined: it was there). */
  created?: string;
  /** The process's RSS with the store open, and its peak (maxRSS) until then: both in MB. */
  rssMb: number;
  peakMb: number;
}

/**
 * Opens the embedded store on DATA_DIR in a process of its own (no PGLITE_TEMPLATE_DIR: a real first start),
 * copying `cluster` when it is one of this PGlite, and answers what it found and the memory it took.
 */
async function openInProcess(dataDir: string, cluster = SHIPPED_CLUSTER): Promise<Opened> {
  const code = `
    import { openPgliteStore } from ${JSON.stringify(OPEN_PGLITE)};
    let created;
    const store = await openPgliteStore(process.env.OPEN_DIR, { queryTimeoutMs: 10000, clusterDir: process.env.OPEN_CLUSTER, onCreated: (how) => (created = how) });
    const companies = await store.companies.count({});
    const rssMb = Math.round(process.memoryUsage().rss / 1048576);
    const peakMb = Math.round(process.resourceUsage().maxRSS / 1024);
    await store.close();
    process.stdout.write(JSON.stringify({ companies, created, rssMb, peakMb }));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    env: { PATH: process.env.PATH ?? '', OPEN_DIR: dataDir, OPEN_CLUSTER: cluster },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += String(chunk)));
  child.stderr.on('data', (chunk) => (err += String(chunk)));
  const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(exitCode, err).to.equal(0);
  return JSON.parse(out) as Opened;
}

/**
 * A first start on an empty DATA_DIR copies the empty database the build made (dist/pglite-cluster) instead of
 * creating one: PGlite's initdb peaked at ~1 GB of RSS (VmHWM 1,007 MB against 375 MB for a restart), which a
 * container limited to 512 MB did not survive. Without that cluster (or with one of another PGlite), initdb
 * runs in a worker thread, so the memory it grows to (never given back) leaves with the thread.
 */
describe('the embedded store on a first start', function () {
  this.timeout(180_000);

  it('copies the build\'s empty database, and peaks no higher than a restart', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const first = await openInProcess(dir);
      expect(first).to.include({ companies: 0, created: 'cluster' });
      expect(existsSync(path.join(dir, 'pglite', 'PG_VERSION'))).to.equal(true);
      expect(existsSync(path.join(dir, 'pglite.creating'))).to.equal(false);
      expect((await fs.stat(path.join(dir, 'pglite'))).mode & 0o777, 'DATA_DIR/pglite is the gateway user\'s alone').to.equal(0o700);
      const again = await openInProcess(dir);
      expect(again.companies).to.equal(0);
      expect(again.created).to.equal(undefined);
      // Before the copy: initdb peaked at 866 against 375 MB. A margin for the allocator, not for initdb's memory.
      expect(first.peakMb, `first start peaked at ${first.peakMb} MB, restart at ${again.peakMb} MB`).to.be.below(again.peakMb + 100);
    } finally {
      await cleanup();
    }
  });

  it('npm start on an empty DATA_DIR says it copied the build\'s empty database, and serves', async () => {
    const { dir, cleanup } = await tempDir();
    const template = process.env.PGLITE_TEMPLATE_DIR;
    let gateway: GatewayProcess | null = null;
    try {
      // A real first start: not the migrated template the suite hands every gateway it starts.
      delete process.env.PGLITE_TEMPLATE_DIR;
      gateway = await spawnGateway({ DATA_DIR: dir, BOOTSTRAP_API_KEY: 'first-start-key-0123456789abcdef' });
      const line = gateway.stdout().split('\n').find((l) => l.includes('"how":'));
      expect(JSON.parse(line ?? '{}')).to.include({ level: 30, how: 'cluster', msg: `store: created the embedded database in ${dir}/pglite, copied from the build's empty database (dist/pglite-cluster)` });
      const companies = await fetch(`${gateway.url}/v1/companies`, { headers: { authorization: 'Bearer first-start-key-0123456789abcdef' } });
      expect(companies.status).to.equal(200);
    } finally {
      if (template !== undefined) process.env.PGLITE_TEMPLATE_DIR = template;
      await killIfRunning(gateway);
      await cleanup();
    }
  });

  it('stops, naming PGLITE_TEMPLATE_DIR and why, when the template it names holds no database', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await fs.mkdir(path.join(dir, 'template', 'pglite'), { recursive: true });
      const started = await spawnGateway({ DATA_DIR: path.join(dir, 'data'), PGLITE_TEMPLATE_DIR: path.join(dir, 'template') }).then(
        () => 'listening',
        (error: Error) => error.message,
      );
      expect(started).to.include(`config error: PGLITE_TEMPLATE_DIR could not be copied: ${dir}/template/pglite holds no PGlite database (no PG_VERSION)`);
      expect(started).to.match(/gateway exited with 1 before listening/);
      expect(existsSync(path.join(dir, 'data', 'pglite.creating'))).to.equal(false);
      expect(existsSync(path.join(dir, 'data', 'pglite', 'PG_VERSION'))).to.equal(false);
    } finally {
      await cleanup();
    }
  });

  it('creates the database apart (initdb) when the build\'s is of another PGlite, and does not keep initdb memory in the process', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const cluster = path.join(dir, 'cluster');
      await fs.cp(SHIPPED_CLUSTER, cluster, { recursive: true });
      await fs.writeFile(path.join(cluster, 'stamp.json'), JSON.stringify({ pglite: '0.0.1' }));
      const data = path.join(dir, 'data');
      const first = await openInProcess(data, cluster);
      expect(first).to.include({ companies: 0, created: 'initdb' });
      expect(existsSync(path.join(data, 'pglite.creating'))).to.equal(false);
      const again = await openInProcess(data, cluster);
      expect(again.companies).to.equal(0);
      // Before the worker: 772 against 309 MB kept. A margin for the allocator, not for initdb's memory.
      expect(first.rssMb, `first start ${first.rssMb} MB, restart ${again.rssMb} MB`).to.be.below(again.rssMb + 150);
    } finally {
      await cleanup();
    }
  });

  it('replaces what a start that died while creating the database left behind', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await fs.mkdir(path.join(dir, 'pglite.creating', 'base'), { recursive: true });
      await fs.writeFile(path.join(dir, 'pglite.creating', 'base', 'half-written'), 'x');
      await fs.mkdir(path.join(dir, 'pglite'));
      const opened = await openInProcess(dir);
      expect(opened.companies).to.equal(0);
      expect(existsSync(path.join(dir, 'pglite.creating'))).to.equal(false);
      expect(existsSync(path.join(dir, 'pglite', 'base', 'half-written'))).to.equal(false);
    } finally {
      await cleanup();
    }
  });
});
