import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, type ScriptRun } from '../../authoring/run-script.ts';
import { runCommand } from '../../helpers/process.ts';

/** Every npm script that runs a tool of scripts/, by its file; and the bench's profile summary, run by path. */
const packageScripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const TOOLS: [string, string][] = [
  ...Object.entries(packageScripts)
    .map(([name, command]): [string, string] | null => {
      const file = /^node --import tsx (scripts\/\S+\.ts)$/.exec(command)?.[1];
      return file ? [`npm run ${name}`, file] : null;
    })
    .filter((tool): tool is [string, string] => tool !== null),
  ['node --import tsx scripts/bench/profile-summary.ts', 'scripts/bench/profile-summary.ts'],
];

const run = (file: string, args: string[]) => runCommand(['--import', 'tsx', file, ...args], {}) as Promise<ScriptRun>;

describe('every command-line tool (scripts/)', function () {
  this.timeout(120_000);

  it('is every npm script of scripts/', () => {
    expect(TOOLS.map(([name]) => name)).to.include.members([
      'npm run admin',
      'npm run validate',
      'npm run gen:types',
      'npm run fmt',
      'npm run diff',
      'npm run catalogue',
      'npm run new-app',
      'npm run demo:upstream',
      'npm run test:definitions',
      'npm run bench',
      'npm run attack',
    ]);
  });

  for (const [name, file] of TOOLS) {
    it(`${name}: --help on stdout (exit 0); an unknown option refused with one usage line on stderr (exit 2)`, async () => {
      const [help, short, unknown] = await Promise.all([run(file, ['--help']), run(file, ['-h']), run(file, ['--no-such-option'])]);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stderr).to.equal('');
      expect(help.stdout).to.match(new RegExp(`^usage: ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |\\n)`));
      expect(help.stdout).to.match(/\n {2}-h, --help +show this help\n/);
      expect(short).to.deep.equal(help);
      const usage = help.stdout.split('\n')[0];
      expect(unknown).to.deep.equal({ code: 2, stdout: '', stderr: `unknown option --no-such-option\n${usage}\n` });
    });
  }

  it('refuses a missing or an extra positional with the usage line', async () => {
    const [slug, extra, bench] = await Promise.all([
      run('scripts/new-app.ts', []),
      run('scripts/validate.ts', ['a', 'b']),
      run('scripts/bench/index.ts', ['--duration=soon']),
    ]);
    expect(slug).to.deep.include({ code: 2, stdout: '', stderr: 'missing <slug>\nusage: npm run new-app -- [--name "Display Name"] [--dir <folder>] <slug>\n' });
    expect(extra).to.deep.include({ code: 2, stdout: '', stderr: 'unexpected argument b\nusage: npm run validate -- [<dir>]\n' });
    expect(bench.code).to.equal(2);
    expect(bench.stderr).to.match(/^--duration must be a number, 0 or more \(got soon\)\nusage: npm run bench -- \[--quick\]/);
  });
});

describe('progress of long operations', function () {
  this.timeout(120_000);

  it('stays off stderr when it is piped: validate, fmt --check and test:definitions print what they printed before', async () => {
    const [validate, fmt, tests] = await Promise.all([run('scripts/validate.ts', []), run('scripts/fmt.ts', ['--check']), run('scripts/test-definitions.ts', ['demo-todos'])]);
    expect(validate.code, validate.stdout).to.equal(0);
    expect(validate.stderr).to.equal('');
    expect(fmt.code).to.equal(0);
    expect(fmt.stderr).to.match(/^ok: \d+ files canonical\n$/);
    expect(tests.code, tests.stdout).to.equal(0);
    expect(tests.stderr).to.equal('');
    for (const output of [validate, fmt, tests].map((r) => r.stdout + r.stderr)) expect(output).not.to.match(/\r|\x1b\[/);
  });

  it('is one line rewritten in place on a terminal (through script(1), where the machine has it)', async function () {
    const script = ['/usr/bin/script', '/bin/script'].find((file) => fs.existsSync(file));
    if (!script) this.skip();
    const command = `${JSON.stringify(process.execPath)} --import tsx scripts/validate.ts`;
    const typed = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(script!, ['-qec', command, '/dev/null'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', TERM: 'dumb' } }, (error, stdout) =>
        resolve({ code: error ? Number(error.code) : 0, stdout }),
      ),
    );
    expect(typed.code, typed.stdout).to.equal(0);
    const files = Number(/ in (\d+) files/.exec(typed.stdout)?.[1]);
    expect(files).to.be.greaterThan(100);
    expect(typed.stdout).to.include(`\rvalidate: ${files}/${files} files\x1b[K`);
    // Cleared before the summary, which starts a clean line.
    expect(typed.stdout).to.match(/\r\x1b\[K(\r\n)?ok: definitions has /);
  });
});
