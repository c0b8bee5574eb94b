import { execFile } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { INVALID, materialiseCase, tempDir } from '../support/definition-fixtures.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** tsx by absolute URL: the command runs in a temporary folder, where a bare `tsx` would not resolve. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `npm run validate -- <dir>` as CI and authors run it (the script itself, without npm's banner). */
function validate(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', TSX, path.join(ROOT, 'scripts/validate.ts'), ...args], { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe('npm run validate', function () {
  this.timeout(30_000);

  it('passes on the bundled apps with a one-line summary', async () => {
    const { code, stdout } = await validate(ROOT);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^ok: definitions has \d+ apps, \d+ versions, \d+ actions in \d+ files \(hash [0-9a-f]{12}\)\n$/);
  });

  it('lists every problem as <file>:<line>:<column> <CODE> <message>, relative to the current folder, and exits 1', async () => {
    const tmp = await tempDir('defs-cli-');
    try {
      const dir = path.join(tmp.dir, 'definitions');
      await materialiseCase(path.join(INVALID, 'ARG_PARENT_MISSING'), dir);
      const { code, stdout, stderr } = await validate(tmp.dir, 'definitions');
      expect(code).to.equal(1);
      expect(stdout).to.equal(
        'definitions/acme/versions/1/actions/create-contact.yaml:19:13 ARG_PARENT_MISSING argument "country" names parent "adress", which does not exist\n',
      );
      expect(stderr).to.equal('1 problem in definitions (6 files)\n');
    } finally {
      await tmp.remove();
    }
  });
});
