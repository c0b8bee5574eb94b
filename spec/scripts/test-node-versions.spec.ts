import { expect } from 'chai';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ROOT, runScript } from '../authoring/run-script.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const MAJOR = process.versions.node.split('.')[0]!;
const PASSES = path.join(ROOT, 'spec/fixtures/node-versions/passes.ts');
const FAILS = path.join(ROOT, 'spec/fixtures/node-versions/fails.ts');

const lockHash = async () => createHash('sha256').update(await fs.readFile(path.join(ROOT, 'package-lock.json'))).digest('hex');

describe('npm run test:node', function () {
  this.timeout(60_000);
  let cache: { dir: string; cleanup: () => Promise<void> };

  // A cache already holding this major's binary: a wrapper that marks its environment and runs the machine's Node,
  // so the runs below fetch nothing and the fixture can tell that the cached binary, not the machine's, ran it.
  before(async () => {
    cache = await tempDir('igw-node-versions-');
    const bin = path.join(cache.dir, `node-${MAJOR}`, 'node_modules', '.bin');
    await fs.mkdir(bin, { recursive: true });
    await fs.writeFile(path.join(bin, 'node'), `#!/bin/sh\nNODE_VERSIONS_WRAPPER=used exec "${process.execPath}" "$@"\n`, { mode: 0o755 });
  });
  after(() => cache.cleanup());

  it('runs the given spec file with the cached binary and reports its counts, exiting 0 when all passed', async () => {
    const before = await lockHash();
    const run = await runScript('test-node-versions.ts', [MAJOR, '--cache', cache.dir, '--spec', PASSES]);
    expect(run.stderr).to.equal('');
    expect(run.stdout).to.include(`Node ${process.version}: 1 passing, 0 failing, 0 pending`);
    expect(run.stdout).not.to.include('fetching');
    expect(run.code).to.equal(0);
    expect(await lockHash()).to.equal(before);
    const config = JSON.parse(await fs.readFile(path.join(cache.dir, `node-${MAJOR}`, 'mocharc.json'), 'utf8'));
    expect(config['node-option']).to.deep.equal(['import=tsx']);
    // The run's progress, test by test, in its log.
    const log = await fs.readFile(path.join(cache.dir, `node-${MAJOR}`, 'output.log'), 'utf8');
    expect(log).to.include('a suite run on the chosen binary').and.to.include('runs under the binary the script found in its cache');
  });

  it('lists each failed test with its file and exits 1', async () => {
    const run = await runScript('test-node-versions.ts', [MAJOR, '--cache', cache.dir, '--spec', PASSES, '--spec', FAILS]);
    expect(run.stdout).to.include(`Node ${process.version}: 1 passing, 1 failing, 1 pending`);
    expect(run.stdout).to.include("failed: spec/fixtures/node-versions/fails.ts: a failing suite reports its failure: expected 'actual' to equal 'expected'");
    expect(run.code).to.equal(1);
  });

  it('says so and exits 2 when the cached binary is of another line', async () => {
    const other = String(Number(MAJOR) + 1);
    const bin = path.join(cache.dir, `node-${other}`, 'node_modules', '.bin');
    await fs.mkdir(bin, { recursive: true });
    await fs.symlink(process.execPath, path.join(bin, 'node'));
    const run = await runScript('test-node-versions.ts', [other, '--cache', cache.dir, '--spec', PASSES]);
    expect(run.stderr).to.include(`Node ${other}: `).and.to.include(`is ${process.version}, not Node ${other} (run with --update)`);
    expect(run.code).to.equal(2);
  });

  it('takes an exact release, and refuses a cached binary of another release', async () => {
    const exact = process.versions.node;
    const bin = path.join(cache.dir, `node-${exact}`, 'node_modules', '.bin');
    await fs.mkdir(bin, { recursive: true });
    await fs.symlink(process.execPath, path.join(bin, 'node'));
    const run = await runScript('test-node-versions.ts', [exact, '--cache', cache.dir, '--spec', FAILS]);
    expect(run.stdout).to.include(`Node ${process.version}: 0 passing, 1 failing, 1 pending`);
    expect(run.code).to.equal(1);
    const older = `${MAJOR}.0.0`;
    const stale = path.join(cache.dir, `node-${older}`, 'node_modules', '.bin');
    await fs.mkdir(stale, { recursive: true });
    await fs.symlink(process.execPath, path.join(stale, 'node'));
    const refused = await runScript('test-node-versions.ts', [older, '--cache', cache.dir, '--spec', PASSES]);
    expect(refused.stderr).to.include(`is ${process.version}, not Node ${older} (run with --update)`);
    expect(refused.code).to.equal(2);
  });

  it('answers --help with its usage', async () => {
    const run = await runScript('test-node-versions.ts', ['--help']);
    expect(run.stdout).to.match(/^usage: npm run test:node -- .*<major>\.\.\.\n/);
    expect(run.stdout).to.include('--spec <file>').and.to.include('--update').and.to.include('--cache <dir>');
    expect(run.code).to.equal(0);
  });

  for (const [args, message] of [
    [[], 'missing <major>'],
    [['lts'], 'not a Node version: lts (a major such as 22, or an exact release such as 22.12.0)'],
    [['22.12'], 'not a Node version: 22.12 '],
    [['22', '--spec', 'spec/no-such.spec.ts'], 'no such spec file: spec/no-such.spec.ts'],
    [['22', '--parallel'], 'unknown option --parallel'],
  ] as const) {
    it(`refuses ${args.join(' ') || 'no arguments'} with a usage line, fetching nothing`, async () => {
      const run = await runScript('test-node-versions.ts', [...args]);
      expect(run.stderr).to.include(message).and.to.include('usage: npm run test:node');
      expect(run.stdout).to.equal('');
      expect(run.code).to.equal(2);
    });
  }
});
