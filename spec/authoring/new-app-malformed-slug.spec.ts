import fs from 'node:fs/promises';
import { expect } from 'chai';
import { tempDir } from '../support/definition-fixtures.ts';
import { runScript } from './run-script.ts';

/**
 * A slug with an empty word (`a--b`, `-a` after `--`, `a-`) is refused as any
 * invalid slug is: exit 2, one line, nothing written. The default display
 * name was made from the slug before the slug was checked, and an empty word
 * has no first letter: the command died with a TypeError and its stack.
 */
describe('npm run new-app: a slug with an empty word', function () {
  this.timeout(30_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('new-app-slug-');
  });
  afterEach(() => tmp.remove());

  for (const slug of ['a--b', 'a-', '-a']) {
    it(`"${slug}": exit 2, "not a valid app slug", nothing written`, async () => {
      const run = await runScript('new-app.ts', ['--dir', 'definitions', '--', slug], { cwd: tmp.dir });
      expect(run).to.deep.equal({
        code: 2,
        stdout: '',
        stderr: `"${slug}" is not a valid app slug: use kebab-case, lowercase letters and digits joined by single hyphens (acme-crm)\n`,
      });
      expect(await fs.readdir(tmp.dir)).to.deep.equal([]);
    });
  }
});
