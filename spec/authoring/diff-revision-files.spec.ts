import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';
import { runScript } from './run-script.ts';

/**
 * A file of a git revision is held to what a file of a folder is held to:
 * at most 1 MB, UTF-8. A 70 MB blob overflowed `git show`'s buffer and the
 * command died with a RangeError and its stack; a Latin-1 one loaded with
 * U+FFFD where the same file in a folder is FILE_UNREADABLE.
 */
describe('npm run diff: files of a git revision that are not definition text', function () {
  this.timeout(120_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  let repo: string;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: repo, stdio: 'pipe' });
  beforeEach(async () => {
    tmp = await tempDir('diff-revision-files-');
    repo = tmp.dir;
    await copyValid(path.join(repo, 'definitions'));
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'acme');
  });
  afterEach(() => tmp.remove());

  it('a 70 MB file and a Latin-1 one: exit 2, each a located FILE_UNREADABLE of the revision', async () => {
    const big = path.join(repo, 'definitions/acme/versions/1/actions/big.yaml');
    const handle = await fs.open(big, 'w');
    await handle.write('id: big\ndescription: "');
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < 70; i++) await handle.write(chunk);
    await handle.write('"\n');
    await handle.close();
    await fs.writeFile(path.join(repo, 'definitions/acme/app.yaml'), Buffer.from('id: acme\nslug: acme-crm\nname: Acm\u00e9 CRM\npublished: 1\n', 'latin1'));
    git('add', '.');
    git('commit', '-q', '-m', 'big and latin-1');
    const run = await runScript('diff.ts', ['HEAD~1', 'HEAD'], { cwd: repo });
    expect(run.code).to.equal(2);
    expect(run.stderr.split('\n').filter((line) => line.includes('FILE_UNREADABLE'))).to.deep.equal([
      'HEAD:definitions/acme/app.yaml:3:10 FILE_UNREADABLE the file is not UTF-8 text: byte 0xE9 at line 3, column 10; save it as UTF-8',
      `HEAD:definitions/acme/versions/1/actions/big.yaml:1:1 FILE_UNREADABLE the file is ${(await fs.stat(big)).size} bytes; a definition file may have at most 1048576 bytes (1 MB): split it, or shorten it`,
    ]);
  });
});
