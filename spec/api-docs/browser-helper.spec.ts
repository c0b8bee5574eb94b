import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromiumPath, SKIP_MESSAGE } from '../helpers/browser.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { ROOT } from '../helpers/process.ts';

describe('the browser specs\' Chromium (spec/helpers/browser.ts)', function () {
  this.timeout(60_000);

  it('takes CHROMIUM_PATH when set, and refuses one that is not an executable (a mistake, not a skip)', () => {
    expect(chromiumPath({ CHROMIUM_PATH: process.execPath }, '/nonexistent')).to.equal(process.execPath);
    expect(() => chromiumPath({ CHROMIUM_PATH: '/nonexistent/chromium' })).to.throw('CHROMIUM_PATH=/nonexistent/chromium is not an executable file');
  });

  it('finds none when nothing is installed', () => {
    expect(chromiumPath({}, '/nonexistent/chromium')).to.equal(null);
  });

  it('without a browser, says SKIPPED with the install command and reports the tests pending, never passing', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const spec = path.join(dir, 'no-browser.spec.ts');
      writeFileSync(spec, `
import { launchBrowserOrSkip } from ${JSON.stringify(path.join(ROOT, 'spec/helpers/browser.ts'))};
describe('a browser suite', function () {
  before(async function () { await launchBrowserOrSkip(this, null); });
  it('would need a browser', () => { throw new Error('ran without a browser'); });
});
`);
      const run = spawnSync(path.join(ROOT, 'node_modules/.bin/mocha'), ['--no-config', '--node-option', 'import=tsx', spec], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status, run.stdout + run.stderr).to.equal(0);
      expect(run.stderr).to.include(`${SKIP_MESSAGE}: a browser suite`);
      expect(run.stdout).to.include('0 passing').and.include('1 pending');
    } finally {
      await cleanup();
    }
  });
});
