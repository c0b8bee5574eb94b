import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';
import { runScript } from './run-script.ts';

describe('npm run icons (icon.svg of every app folder)', function () {
  this.timeout(120_000);

  it('definitions/ has every icon written (after adding an app, run npm run icons)', async () => {
    const run = await runScript('icons.ts', ['--check']);
    expect(run.stdout, run.stderr).to.match(/^icons are current; \d+ apps: \d+ brand icons from simple-icons, \d+ monograms\n$/);
    expect(run.code).to.equal(0);
  });

  describe('in a folder of its own', () => {
    let tmp: { dir: string; remove: () => Promise<void> };
    beforeEach(async () => {
      tmp = await tempDir('icons-');
      await copyValid(path.join(tmp.dir, 'definitions'));
    });
    afterEach(() => tmp.remove());

    it('writes a monogram for an app simple-icons does not have, then --check holds it, and names it once it changes', async () => {
      const stale = await runScript('icons.ts', ['--check'], { cwd: tmp.dir });
      expect(stale).to.deep.equal({ code: 1, stdout: 'stale definitions/acme/icon.svg (monogram)\n1 icon is stale (run npm run icons); 1 apps: 0 brand icons from simple-icons, 1 monograms\n', stderr: '' });
      const wrote = await runScript('icons.ts', [], { cwd: tmp.dir });
      expect(wrote.stdout).to.equal('wrote definitions/acme/icon.svg (monogram)\n1 written; 1 apps: 0 brand icons from simple-icons, 1 monograms\n');
      expect(await fs.readFile(path.join(tmp.dir, 'definitions/acme/icon.svg'), 'utf8')).to.include('>AC</text>');
      expect((await runScript('icons.ts', ['--check'], { cwd: tmp.dir })).code).to.equal(0);
      await fs.writeFile(path.join(tmp.dir, 'definitions/acme/icon.svg'), '<svg/>');
      expect((await runScript('icons.ts', ['--check'], { cwd: tmp.dir })).code).to.equal(1);
    });
  });
});
