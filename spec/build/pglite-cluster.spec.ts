import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pgliteVersion } from '../../engine/platform/store/sql/pglite-create.ts';
import { ensureBuilt } from '../helpers/start-command.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `node dist/scripts/build-pglite-cluster.js <dir>`, as `npm run build` runs it (without the folder: dist/pglite-cluster). */
function build(target: string) {
  return spawnSync(process.execPath, ['dist/scripts/build-pglite-cluster.js', target], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
}

/** Every mode under `dir`, by path relative to it. */
async function modes(dir: string): Promise<Map<string, { directory: boolean; mode: number }>> {
  const found = new Map<string, { directory: boolean; mode: number }>();
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    found.set(path.relative(dir, file), { directory: entry.isDirectory(), mode: (await fs.stat(file)).mode & 0o777 });
  }
  return found;
}

/**
 * The empty database `npm run build` makes for first starts to copy (engine/platform/store/sql/pglite-create.ts):
 * stamped with the PGlite that made it, kept while that is the installed one, readable by every user (the image
 * builds it as root and runs as `node`).
 */
describe('the build\'s empty embedded database (dist/pglite-cluster)', function () {
  this.timeout(180_000);
  before(() => ensureBuilt());

  it('is made once per PGlite version, stamped, and readable by every user', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const target = path.join(dir, 'cluster');
      const made = build(target);
      expect(made.status, made.stderr).to.equal(0);
      expect(made.stdout).to.match(/^made .*cluster, the empty embedded database a first start copies \(\d+\.\d s\)\n$/);
      expect(JSON.parse(await fs.readFile(path.join(target, 'stamp.json'), 'utf8'))).to.deep.equal({ pglite: pgliteVersion() });
      const found = await modes(target);
      expect(found.get(path.join('pglite', 'PG_VERSION'))).to.deep.equal({ directory: false, mode: 0o644 });
      for (const [file, { directory, mode }] of found) expect(mode, file).to.equal(directory ? 0o755 : 0o644);
      expect((await fs.readdir(dir)).sort(), 'nothing left beside it').to.deep.equal(['cluster']);

      const kept = build(target);
      expect(kept.status, kept.stderr).to.equal(0);
      expect(kept.stdout, 'kept: nothing to say').to.equal('');

      await fs.writeFile(path.join(target, 'stamp.json'), JSON.stringify({ pglite: '0.0.1' }));
      const remade = build(target);
      expect(remade.status, remade.stderr).to.equal(0);
      expect(remade.stdout).to.match(/^made /);
      expect(JSON.parse(await fs.readFile(path.join(target, 'stamp.json'), 'utf8'))).to.deep.equal({ pglite: pgliteVersion() });
    } finally {
      await cleanup();
    }
  });

  it('says what it could not do, and exits 1', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await fs.writeFile(path.join(dir, 'file'), 'x');
      const refused = build(path.join(dir, 'file', 'cluster'));
      expect(refused.status).to.equal(1);
      expect(refused.stderr).to.match(/^could not make .*file\/cluster: /);
      expect(refused.stderr).not.to.include('    at ');
    } finally {
      await cleanup();
    }
  });
});
