import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';
import { runScript } from './run-script.ts';

/**
 * `--out` and `--descriptions` that cannot be what they name are usage
 * errors: one line, exit 2, nothing written. A folder given as `--out` died
 * with Node's EISDIR and its stack; a `--descriptions` folder that does not
 * exist (a typo) was taken as "no descriptions kept", and the page written
 * without a single description check.
 */
describe('npm run catalogue: --out and --descriptions that cannot be used', function () {
  this.timeout(60_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('catalogue-paths-');
    await copyValid(path.join(tmp.dir, 'definitions'));
  });
  afterEach(() => tmp.remove());

  it('--out naming a folder: exit 2, one line naming it', async () => {
    await fs.mkdir(path.join(tmp.dir, 'docs'));
    const run = await runScript('catalogue.ts', ['--out', 'docs'], { cwd: tmp.dir });
    expect(run).to.deep.equal({ code: 2, stdout: '', stderr: '--out docs is a folder: give the page to write (docs/catalogue.md)\n' });
  });

  it('--descriptions naming no folder: exit 2, one line naming it, no page written', async () => {
    const run = await runScript('catalogue.ts', ['--descriptions', 'spec/fixtures/descriptons'], { cwd: tmp.dir });
    expect(run).to.deep.equal({ code: 2, stdout: '', stderr: '--descriptions spec/fixtures/descriptons is not a folder\n' });
    expect(await fs.readdir(tmp.dir)).to.deep.equal(['definitions']);
  });
});
