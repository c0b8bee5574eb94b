import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT, spawnGateway, type GatewayProcess } from '../helpers/process.ts';
import { ensureBuilt, START_ARGS } from '../helpers/start-command.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** node's options of the production start (everything before the entry file). */
const NODE_OPTIONS = START_ARGS.slice(0, -1);

/** Runs a module text with the production start's node options, in the repository folder. */
function runCompiled(source: string) {
  return spawnSync(process.execPath, [...NODE_OPTIONS, '--input-type=module', '-e', source], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
}

/** `--import` module whose loader hooks make the packages in REFUSE_IMPORTS fail to load, as when they are not installed. */
const REFUSE = path.join(ROOT, 'spec/fixtures/refuse-imports/register.mjs');

describe('the compiled build (npm run build, npm start)', function () {
  this.timeout(120_000);
  before(() => ensureBuilt());

  it('starts with plain node on dist/, source maps on, and needs neither tsx nor TypeScript installed', () => {
    expect(pkg.scripts.start).to.equal('node --enable-source-maps dist/engine/main.js');
    expect(pkg.scripts.dev).to.equal('node --import tsx engine/main.ts');
    expect(Object.keys(pkg.dependencies)).to.not.include.members(['tsx']);
    expect(Object.keys(pkg.dependencies)).to.not.include.members(['typescript']);
    expect(pkg.devDependencies).to.include.keys('tsx', 'typescript');
  });

  describe('the gateway process', () => {
    let data: Awaited<ReturnType<typeof tempDir>>;
    let gateway: GatewayProcess | null = null;
    beforeEach(async () => {
      data = await tempDir();
    });
    afterEach(async () => {
      if (gateway && gateway.child.exitCode === null) {
        gateway.child.kill('SIGKILL');
        await gateway.exited;
      }
      gateway = null;
      await data.cleanup();
    });

    it('answers /health with tsx, TypeScript and esbuild unable to load, as in a production install without them', async () => {
      // The same hook makes `node --import tsx engine/main.ts` (npm run dev) exit 1 at once.
      // Generous: on a loaded machine a start takes tens of seconds; the figures are in docs/benchmarks.md.
      gateway = await spawnGateway({ PORT: '0', DATA_DIR: data.dir, NODE_OPTIONS: `--import=${REFUSE}`, REFUSE_IMPORTS: 'tsx,typescript,esbuild' }, 90_000);
      expect((await fetch(`${gateway.url}/health`)).status).to.equal(200);
    });
  });

  it('maps a stack trace of compiled code to the TypeScript line', () => {
    const run = runCompiled(`
      const { loadConfig } = await import('./dist/engine/config/config.js');
      try { loadConfig({ PORT: 'not-a-port' }); } catch (error) { console.log(error.stack); }
    `);
    expect(run.stdout).to.include('PORT');
    expect(run.stdout).to.match(/engine\/config\/config\.ts:\d+:\d+/);
    expect(run.stdout).to.not.match(/config\.js:\d+/);
  });

  it('analyses definitions on worker threads when compiled (the worker is dist/…/analysis-worker.js, no tsx)', () => {
    const run = runCompiled(`
      const { analyseFiles, PARALLEL_MIN_FILES } = await import('./dist/engine/core/definitions/parallel-analysis.js');
      const { sourceFile } = await import('./dist/engine/core/definitions/source-files.js');
      const { DEFAULT_MAPPING_LIMITS } = await import('./dist/engine/core/mapping/index.js');
      const { appFiles } = await import('./dist/scripts/bench/scale-tree.js');
      const files = [];
      for (let app = 1; files.length < PARALLEL_MIN_FILES; app++) for (const [file, text] of appFiles(app, 30)) files.push(sourceFile(file, text));
      const { analyses, workersDone } = await analyseFiles(files, DEFAULT_MAPPING_LIMITS, 2);
      console.log(JSON.stringify({ files: analyses.length, workersDone, problems: analyses.flatMap((a) => a.problems).length }));
    `);
    expect(run.stderr).to.equal('');
    const result = JSON.parse(run.stdout) as { files: number; workersDone: number; problems: number };
    expect(result.workersDone).to.equal(2);
    expect(result.problems).to.equal(0);
  });

  it('runs the scripts compiled too: the admin tool answers from dist/', async () => {
    const data = await tempDir();
    try {
      const run = spawnSync(process.execPath, [...NODE_OPTIONS, 'dist/scripts/admin.js', 'no-such-command'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', DATA_DIR: data.dir },
      });
      // Compiled, there is no `npm run admin` (the image has no tsx and no scripts/): the usage line says what was typed.
      expect(run.stderr).to.include('unknown command "no-such-command"').and.include('usage: node dist/scripts/admin.js <command>');
      expect(run.stderr).not.to.include('npm run');
      expect(run.status).to.equal(2);
      const help = spawnSync(process.execPath, [...NODE_OPTIONS, 'dist/scripts/admin.js', 'keys:create', '--help'], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', DATA_DIR: data.dir } });
      expect(help.stdout).to.match(/^usage: node dist\/scripts\/admin\.js keys:create /);
      expect(help.status).to.equal(0);
      const validate = spawnSync(process.execPath, [...NODE_OPTIONS, 'dist/scripts/validate.js', '--help'], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect(validate.stdout).to.match(/^usage: node dist\/scripts\/validate\.js \[<dir>\]/);
    } finally {
      await data.cleanup();
    }
  });
});
