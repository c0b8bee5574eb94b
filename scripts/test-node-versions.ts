/**
 * `npm run test:node -- <major or exact version>... [--spec <file>]... [--update] [--cache <dir>]`:
 * runs the test suite (mocha through tsx, as `npm test` does, serially) with
 * the npm-packaged Node binary of each major line, one version after the
 * other, and reports passing, failing and pending tests per version.
 *
 * The binary is the `node` package of the npm registry at that major
 * (`npm install --prefix <cache>/node-<major> node@<major>`), kept under
 * .tmp/ (git-ignored) and reused on later runs; `--update` fetches the line's
 * newest release again. The machine's Node, the project's node_modules and its
 * package-lock.json are left as they are: the chosen binary only comes first
 * on the suite's PATH, so the suite and every process it spawns (gateways,
 * scripts, `npm`) run on it.
 *
 * Exits 0 when every version passed, 1 when a test failed or a run did not
 * finish, 2 on a usage error or a binary that could not be had.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, isEntry, usageLine } from '../engine/platform/cli/command-line.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** mocha's spec reporter into the run's log, plus the counts and failures as JSON for this script. */
const REPORTER = path.join(ROOT, 'scripts', 'node-versions-reporter.cjs');

export const cli = {
  command: 'npm run test:node --',
  summary:
    'Runs the test suite with the npm-packaged Node binary of each <major> (e.g. 22 24; or an exact release, 22.12.0), one after the other, and reports passing, failing and pending tests per version. The machine\'s Node and package-lock.json are left alone.',
  options: {
    spec: { type: 'string' as const, value: '<file>', multiple: true as const, description: 'run only this spec file (repeatable); default: the whole suite as .mocharc.json lists it' },
    update: { type: 'boolean' as const, description: 'fetch the newest release of each line again instead of the cached binary' },
    cache: { type: 'string' as const, value: '<dir>', description: 'where the binaries are kept, one folder node-<major> each (default .tmp)' },
  },
  positionals: [{ name: '<major>', description: 'a Node major line (22) or an exact release (22.12.0)', repeated: true as const }],
  examples: ['npm run test:node -- 22 24', 'npm run test:node -- 24 --spec spec/http/server/lifecycle.spec.ts', 'npm run test:node -- 22.12.0 --update'],
};

interface Options {
  majors: string[];
  specs: string[];
  update: boolean;
  cache: string;
}

/** The run's options, or null when there is nothing to run (--help answered, or the command line refused: the exit code is set). */
function options(): Options | null {
  const args = commandLine(cli);
  if (!args) return null;
  const refuse = (message: string): null => {
    process.stderr.write(`${message}\n${usageLine(cli)}\n`);
    process.exitCode = 2;
    return null;
  };
  const specs = args.values.spec ?? [];
  const bad = args.positionals.find((major) => !/^[1-9][0-9]*(\.[0-9]+\.[0-9]+)?$/.test(major));
  if (bad !== undefined) return refuse(`not a Node version: ${bad} (a major such as 22, or an exact release such as 22.12.0)`);
  const missing = specs.find((file) => !fs.existsSync(path.resolve(file)));
  if (missing !== undefined) return refuse(`no such spec file: ${missing}`);
  return { majors: [...new Set(args.positionals)], specs: specs.map((file) => path.resolve(file)), update: args.values.update === true, cache: path.resolve(args.values.cache ?? '.tmp') };
}

/** The environment without npm's `npm_*` variables: run through `npm run`, they point npm at this project, which the binary's install must not touch. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, ...extra };
}

function versionOf(binary: string): string | null {
  if (!fs.existsSync(binary)) return null;
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** The cached binary of the line, fetched from the npm registry when absent (or when `update`); the error says why it could not be had. */
function binaryFor(major: string, cache: string, update: boolean): { binary: string; version: string } | { error: string } {
  const prefix = path.join(cache, `node-${major}`);
  const binary = path.join(prefix, 'node_modules', '.bin', 'node');
  if (update || versionOf(binary) === null) {
    process.stdout.write(`fetching node@${major} from the npm registry into ${display(prefix)}\n`);
    fs.mkdirSync(prefix, { recursive: true });
    const npm = spawnSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `node@${major}`], {
      cwd: prefix,
      env: cleanEnv(),
      encoding: 'utf8',
    });
    if (npm.status !== 0) return { error: `npm install node@${major} failed (exit ${npm.status ?? npm.signal}): ${(npm.stderr || npm.error?.message || '').trim()}` };
  }
  const version = versionOf(binary);
  if (version === null) return { error: `${display(binary)} does not run` };
  if (!(major.includes('.') ? version === `v${major}` : version.startsWith(`v${major}.`))) return { error: `${display(binary)} is ${version}, not Node ${major} (run with --update)` };
  return { binary, version };
}

interface Outcome {
  version: string;
  passes: number;
  failures: number;
  pending: number;
  seconds: number;
  /** "file: full title: message" of each failed test. */
  failed: string[];
  /** Set when mocha ended without writing its results (a crash, a signal). */
  unfinished?: string;
}

/** mocha as `npm test` runs it (.mocharc.json's options, without --parallel), its progress in the log and its results in a file; `binary` first on PATH and running mocha itself. */
function runSuite(binary: string, version: string, specs: string[]): Promise<Outcome> {
  const dir = path.dirname(path.dirname(path.dirname(binary)));
  const results = path.join(dir, 'results.json');
  const log = path.join(dir, 'output.log');
  const config = path.join(dir, 'mocharc.json');
  const base = JSON.parse(fs.readFileSync(path.join(ROOT, '.mocharc.json'), 'utf8')) as Record<string, unknown>;
  const { parallel: _parallel, jobs: _jobs, ...serial } = base;
  fs.writeFileSync(config, JSON.stringify({ ...serial, ...(specs.length ? { spec: specs } : {}), reporter: REPORTER, 'reporter-option': [`output=${results}`] }, null, 2));
  fs.rmSync(results, { force: true });
  const out = fs.openSync(log, 'w');
  process.stdout.write(`Node ${version}: running ${specs.length ? specs.map(display).join(', ') : 'the test suite'} (progress in ${display(log)})\n`);
  const started = Date.now();
  const mocha = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const child = spawn(binary, [mocha, '--config', config], {
    cwd: ROOT,
    env: cleanEnv({ PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH ?? ''}` }),
    stdio: ['ignore', out, out],
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      fs.closeSync(out);
      const seconds = Math.round((Date.now() - started) / 1000);
      if (!fs.existsSync(results)) {
        resolve({ version, passes: 0, failures: 0, pending: 0, seconds, failed: [], unfinished: `mocha ended (${signal ?? `exit ${code}`}) without results; see ${display(log)}` });
        return;
      }
      const report = JSON.parse(fs.readFileSync(results, 'utf8')) as {
        stats: { passes: number; failures: number; pending: number };
        failures: { fullTitle: string; file?: string; err: { message?: string } }[];
      };
      const failed = report.failures.map((test) => `${test.file ? `${display(test.file)}: ` : ''}${test.fullTitle}: ${(test.err.message ?? '').split('\n')[0]}`);
      resolve({ version, passes: report.stats.passes, failures: report.stats.failures, pending: report.stats.pending, seconds, failed });
    });
  });
}

function display(file: string): string {
  return path.relative(process.cwd(), file) || '.';
}

function minutes(seconds: number): string {
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

const chosen = isEntry(import.meta.url) ? options() : null;
if (chosen !== null) {
  const outcomes: Outcome[] = [];
  let unobtainable = false;
  for (const major of chosen.majors) {
    const found = binaryFor(major, chosen.cache, chosen.update);
    if ('error' in found) {
      process.stderr.write(`Node ${major}: ${found.error}\n`);
      unobtainable = true;
      continue;
    }
    const outcome = await runSuite(found.binary, found.version, chosen.specs);
    outcomes.push(outcome);
    if (outcome.unfinished) process.stdout.write(`Node ${outcome.version}: ${outcome.unfinished}\n`);
    else process.stdout.write(`Node ${outcome.version}: ${outcome.passes} passing, ${outcome.failures} failing, ${outcome.pending} pending (${minutes(outcome.seconds)})\n`);
    for (const line of outcome.failed) process.stdout.write(`  failed: ${line}\n`);
  }
  if (outcomes.length > 1) {
    process.stdout.write('\nNode       passing  failing  pending  time\n');
    for (const o of outcomes) {
      const cells = o.unfinished ? ['-', 'unfinished', '-'] : [String(o.passes), String(o.failures), String(o.pending)];
      process.stdout.write(`${o.version.padEnd(10)} ${cells[0]!.padStart(7)}  ${cells[1]!.padStart(7)}  ${cells[2]!.padStart(7)}  ${minutes(o.seconds)}\n`);
    }
  }
  // exitCode rather than exit(): output to a pipe is written asynchronously and must not be cut off.
  process.exitCode = unobtainable ? 2 : outcomes.some((o) => o.unfinished || o.failures > 0) ? 1 : 0;
}
