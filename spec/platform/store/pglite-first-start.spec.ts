import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../../helpers/temp-dir.ts';

const OPEN_PGLITE = path.resolve(import.meta.dirname, '../../../engine/platform/store/sql/open-pglite.ts');

/**
 * Opens the embedded store on DATA_DIR in a process of its own (no PGLITE_TEMPLATE_DIR: a real first start),
 * and answers the number of companies it holds and the process's RSS with the store open.
 */
async function openInProcess(dataDir: string): Promise<{ companies: number; rssMb: number }> {
  const code = `
    import { openPgliteStore } from ${JSON.stringify(OPEN_PGLITE)};
    const store = await openPgliteStore(process.env.OPEN_DIR, { queryTimeoutMs: 10000 });
    const companies = await store.companies.count({});
    const rssMb = Math.round(process.memoryUsage().rss / 1048576);
    await store.close();
    process.stdout.write(JSON.stringify({ companies, rssMb }));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    env: { PATH: process.env.PATH ?? '', OPEN_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += String(chunk)));
  child.stderr.on('data', (chunk) => (err += String(chunk)));
  const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(exitCode, err).to.equal(0);
  return JSON.parse(out) as { companies: number; rssMb: number };
}

/**
 * The first start on an empty DATA_DIR creates the database (initdb) in a worker thread, so the WebAssembly
 * memory initdb grows to (never given back) leaves with the thread: before, the first start kept ~770 MB of
 * RSS for the process's life against ~300 MB for every later start.
 */
describe('the embedded store on a first start', function () {
  this.timeout(180_000);

  it('creates the database apart, leaves no half-made folder, and does not keep initdb memory in the process', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const first = await openInProcess(dir);
      expect(first.companies).to.equal(0);
      expect(existsSync(path.join(dir, 'pglite', 'PG_VERSION'))).to.equal(true);
      expect(existsSync(path.join(dir, 'pglite.creating'))).to.equal(false);
      const again = await openInProcess(dir);
      expect(again.companies).to.equal(0);
      // Before the worker: 772 against 309 MB. A margin for the allocator, not for initdb's memory.
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
