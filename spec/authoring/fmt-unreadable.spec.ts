import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { formatFolder } from '../../engine/authoring/format-folder.ts';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';
import { runScript } from './run-script.ts';

/**
 * A definition file the loader cannot read as text (here Latin-1) is one fmt
 * cannot format: it is listed with its position and the reason, counted, and
 * left byte for byte as it is. `fmt` used to read it as UTF-8 and write
 * U+FFFD back in place of each accented letter; `--check` then passed over it
 * in silence.
 */
describe('npm run fmt: a file that is not UTF-8', function () {
  this.timeout(30_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('fmt-unreadable-');
    await copyValid(path.join(tmp.dir, 'definitions'));
    await formatFolder(path.join(tmp.dir, 'definitions'), { write: true });
  });
  afterEach(() => tmp.remove());

  for (const args of [['--check', 'definitions'], ['definitions']]) {
    it(`fmt ${args.join(' ')}: lists it at its first byte that is not UTF-8, exits 1, and leaves its bytes as they are`, async () => {
      const file = path.join(tmp.dir, 'definitions/acme/app.yaml');
      // Not in canonical order either: fmt rewrote such a file, each é written back as U+FFFD.
      const latin1 = Buffer.from('name: Acm\u00e9 CRM\nid: acme\nslug: acme-crm\npublished: 1\n', 'latin1');
      await fs.writeFile(file, latin1);
      const run = await runScript('fmt.ts', args, { cwd: tmp.dir });
      expect(run.stdout).to.equal('definitions/acme/app.yaml:1:10 FILE_UNREADABLE the file is not UTF-8 text: byte 0xE9 at line 1, column 10; save it as UTF-8\n');
      expect(run.stderr).to.match(/, 1 could not be formatted\n$/);
      expect(run.code).to.equal(1);
      expect(await fs.readFile(file)).to.deep.equal(latin1);
    });
  }
});
