import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { ensureBuilt } from '../helpers/start-command.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/**
 * One exit-code convention for every command-line tool (README, "Apps as YAML"; docs/operations.md,
 * Command-line tools): 0 success (and --help), 1 the thing checked failed (problems, a file not canonical,
 * a breaking change, a failing case, a command that failed), 2 a usage error (an unknown option or
 * command, a missing or extra argument, a value that is not what the option takes, a folder that is not
 * there). Each tool runs compiled (dist/scripts, as the image runs it; the same code `npm run` runs through
 * tsx), once per case, in a folder of its own.
 */

type Case = { args: string[]; env?: Record<string, string>; code: 0 | 1 | 2; says?: RegExp; before?: () => Promise<void> };

let work: { dir: string; cleanup: () => Promise<void> };
/**
 * Folders of the work folder, named in the cases by a leading word: `defs` holds the bundled demo app only
 * (small, valid, canonical, with passing cases); `broken` the same app with an action removed from its
 * released version 1 (a breaking change); `invalid` an app.yaml with an unknown key; `no-such-folder` nothing.
 */
const at = (name: string) => path.join(work.dir, name);

const TOOLS: Record<string, { file: string; cases: Case[] }> = {
  admin: {
    file: 'admin.js',
    cases: [
      { args: [], code: 2, says: /^missing <command>\n\nusage: .* <command>/ },
      { args: ['no-such-command'], code: 2, says: /unknown command "no-such-command"/ },
      { args: ['keys:revoke', 'nope'], code: 2, says: /<apiKeyId> must be an API key id/ },
      { args: ['companies:create'], code: 2, says: /--name is required/ },
      { args: ['companies:list'], code: 0 },
      { args: ['keys:revoke', `key_${'0'.repeat(24)}`], code: 1, says: /^error: / },
    ],
  },
  validate: {
    file: 'validate.js',
    cases: [
      { args: ['no-such-folder'], code: 2, says: /no-such-folder is not a folder/ },
      { args: ['defs', 'extra'], code: 2, says: /unexpected argument extra/ },
      { args: ['defs'], code: 0, says: /^ok: defs has 1 apps/ },
      { args: ['invalid'], code: 1, says: /invalid\/demo-todos\/app\.yaml:\d+:\d+ / },
    ],
  },
  fmt: {
    file: 'fmt.js',
    cases: [
      { args: ['--check', 'no-such-folder'], code: 2, says: /is not a folder/ },
      { args: ['--check', 'defs'], code: 0, says: /ok: \d+ files canonical/ },
      {
        args: ['--check', 'broken'],
        code: 1,
        says: /not canonical/,
        before: async () => fs.appendFile(path.join(at('broken'), 'demo-todos/app.yaml'), '\n\n\n'),
      },
    ],
  },
  diff: {
    file: 'diff.js',
    cases: [
      { args: ['no-such-folder', 'defs'], code: 2, says: /is neither a folder nor a git revision/ },
      { args: ['defs'], code: 2, says: /missing <head>/ },
      { args: ['defs', 'defs'], code: 0 },
      { args: ['defs', 'broken'], code: 1 },
    ],
  },
  catalogue: {
    file: 'catalogue.js',
    cases: [
      { args: ['--check', '--dir', 'no-such-folder', '--out', 'x.md'], code: 2, says: /is not a folder/ },
      { args: ['--check', '--dir', 'defs', '--out', 'catalogue.md'], code: 1, says: /stale|missing|does not exist/ },
      { args: ['--dir', 'defs', '--out', 'catalogue.md'], code: 0 },
      { args: ['--check', '--dir', 'defs', '--out', 'catalogue.md'], code: 0 },
    ],
  },
  'new-app': {
    file: 'new-app.js',
    cases: [
      { args: ['Not_A_Slug'], code: 2, says: /is not a valid app slug/ },
      { args: [], code: 2, says: /missing <slug>/ },
      { args: ['--dir', 'scaffolded', 'acme-notes'], code: 0 },
      { args: ['--dir', 'scaffolded', 'acme-notes'], code: 2, says: /acme-notes already exists/ },
    ],
  },
  'test:definitions': {
    file: 'test-definitions.js',
    cases: [
      { args: ['--dir', 'no-such-folder'], code: 2, says: /is not a folder/ },
      { args: ['--dir', 'defs', 'no-such-app'], code: 2, says: /no app with slug or id "no-such-app"/ },
      { args: ['--dir', 'defs'], code: 0, says: /\d+ passed, 0 failed/ },
      {
        args: ['--dir', 'defs'],
        code: 1,
        says: /\d+ passed, 1 failed/,
        before: async () => {
          const file = path.join(at('defs'), 'demo-todos/versions/1/actions/get-todo.test.yaml');
          await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('title: Write the definition, done: false, createdOn', 'title: Something else, done: false, createdOn'));
        },
      },
    ],
  },
  'gen:types': { file: 'gen-types.js', cases: [{ args: ['extra'], code: 2, says: /unexpected argument extra/ }] },
  'test:node': { file: 'test-node-versions.js', cases: [{ args: ['lts'], code: 2, says: /not a Node version: lts/ }, { args: [], code: 2, says: /missing <major>/ }] },
  'demo:upstream': { file: 'demo/upstream.js', cases: [{ args: [], env: { DEMO_PORT: 'eighty' }, code: 2, says: /DEMO_PORT must be a port, 0 to 65535 \(got "eighty"\)/ }] },
  bench: { file: 'bench/index.js', cases: [{ args: ['--only=nope'], code: 2, says: /--only takes/ }, { args: ['--duration=x'], code: 2, says: /--duration must be/ }, { args: ['--log-levels=loud'], code: 2, says: /--log-levels takes any of info, silent, warn, error, debug \(got loud\)/ }, { args: ['--gateway-node-flags=max-semi-space-size=64'], code: 2, says: /--gateway-node-flags takes node flags, each starting with -- \(got max-semi-space-size=64\)/ }, { args: ['--pin'], code: 2, says: /--pin measures the load and slow parts only: add --only=load,slow/ }, { args: ['--baseline-node-flags=--max-semi-space-size=64'], code: 2, says: /--baseline-node-flags needs --baseline=<dir>/ }, { args: ['--baseline=.', '--baseline-node-flags=semi'], code: 2, says: /--baseline-node-flags takes node flags, each starting with -- \(got semi\)/ }] },
  'bench:logs': { file: 'bench/logs.js', cases: [{ args: ['--part=nope'], code: 2, says: /--part takes lines, load/ }, { args: ['--rounds=x'], code: 2, says: /--rounds must be/ }] },
  'bench:tracing': { file: 'bench/tracing-cost.js', cases: [{ args: ['--only=nope'], code: 2 }, { args: ['--rounds=x'], code: 2, says: /--rounds/ }] },
  'bench:docs': { file: 'bench/docs-page.js', cases: [{ args: ['--rounds=x'], code: 2, says: /--rounds/ }] },
  'bench:plan': { file: 'bench/plan-cost.js', cases: [{ args: ['--apps=x'], code: 2, says: /--apps/ }] },
  'bench:run': { file: 'bench/run-cost.js', cases: [{ args: ['--rounds=x'], code: 2, says: /--rounds must be an integer, 1 or more/ }, { args: ['--runs=0'], code: 2, says: /--runs must be an integer, 1 or more/ }] },
  icons: {
    file: 'icons.js',
    cases: [
      { args: ['--dir', 'no-such-folder'], code: 2, says: /no-such-folder is not a folder/ },
      { args: ['--check', '--dir', 'defs', 'extra'], code: 2, says: /unexpected argument extra/ },
      { args: ['--check', '--dir', 'defs'], code: 0, says: /^icons are current/ },
      { args: ['--check', '--dir', 'broken'], code: 1, says: /stale broken\/demo-todos\/icon\.svg/, before: async () => fs.rm(path.join(at('broken'), 'demo-todos/icon.svg')) },
    ],
  },
  'description:trim': {
    file: 'trim-description.js',
    cases: [
      { args: ['demo-todos'], code: 2, says: /missing <description file>/ },
      { args: ['demo-todos', 'no-such.json'], code: 2, says: /no-such\.json does not exist\nusage: / },
      { args: ['demo-todos', 'defs/demo-todos/app.yaml'], code: 2, says: /app\.yaml is not an OpenAPI or Swagger description/ },
      {
        args: ['no-such-app', 'described.json'],
        code: 2,
        says: /no app no-such-app in definitions\//,
        before: async () => fs.writeFile(at('described.json'), JSON.stringify({ openapi: '3.0.3', info: { title: 'Todos', version: '1' }, paths: {} })),
      },
      // An action without its operation: named, exit 1, nothing written (the app is read from definitions/ of the working folder).
      { args: ['demo-todos', 'described.json'], code: 1, says: /not in the description:\n {2}create-todo: POST \/todos/, before: async () => fs.cp(at('defs'), at('definitions'), { recursive: true }) },
    ],
  },
  import: {
    file: 'import.js',
    cases: [
      { args: ['described.yaml'], code: 2, says: /--app is required/ },
      { args: ['--app', 'pets', '--version', 'x', 'described.yaml'], code: 2, says: /--version must be a positive whole number \(got "x"\)/ },
      // Given but naming nothing: it imported every operation, as if the option were not there.
      { args: ['--app', 'pets', '--operations', ',,', 'described.yaml'], code: 2, says: /--operations names no operationId \(got ",,"\)/ },
      { args: ['--app', 'pets', '--tags', ' ', 'described.yaml'], code: 2, says: /--tags names no tag \(got " "\)/ },
      { args: ['--app', 'Not_A_Slug', 'described.yaml'], code: 2, says: /"Not_A_Slug" is not a valid app slug/ },
      { args: ['--app', 'pets', 'no-such.yaml'], code: 2, says: /no-such\.yaml: no such file/ },
      {
        args: ['--app', 'pets', '--dir', 'imported', 'described.yaml'],
        code: 0,
        says: /^Imported described\.yaml .* into imported\/pets\/versions\/draft/,
        before: async () =>
          fs.writeFile(
            at('described.yaml'),
            JSON.stringify({
              openapi: '3.0.3',
              info: { title: 'Pets', version: '1' },
              servers: [{ url: 'https://pets.example.com/v1' }],
              paths: { '/pets/{petId}': { get: { operationId: 'getPet', parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'a pet' } } } } },
            }),
          ),
      },
      { args: ['--app', 'pets', '--dir', 'imported', '--version', '1', 'described.yaml'], code: 0 },
      { args: ['--app', 'pets', '--dir', 'imported', '--version', '1', 'described.yaml'], code: 2, says: /versions\/1 exists/ },
    ],
  },
  'bench:mcp': { file: 'bench/mcp-tools-list.js', cases: [{ args: ['--rounds=x'], code: 2, says: /--rounds must be a whole number, 1 or more \(got x\)\nusage: / }, { args: ['--per-round=0'], code: 2, says: /--per-round must be a whole number, 1 or more \(got 0\)/ }] },
  'bench:import': { file: 'bench/import-cost.js', cases: [{ args: ['--operations=x'], code: 2, says: /--operations must be a whole number, 1 or more \(got x\)\nusage: / }, { args: ['--rounds=0'], code: 2, says: /--rounds must be a whole number, 1 or more \(got 0\)/ }] },
  'bench:pg-gc': { file: 'bench/pg-gc.js', cases: [{ args: ['--child=nope'], code: 2, says: /--child takes promise or callback \(got nope\)\nusage: / }, { args: ['--child=promise'], code: 2, says: /--child needs --url/ }] },
  'bench:proxy': { file: 'bench/proxy-memory.js', cases: [{ args: ['--rounds=x'], code: 2, says: /--rounds must be a whole number, 1 or more \(got x\)\nusage: / }, { args: ['--mb=0'], code: 2, says: /--mb must be a whole number, 1 or more \(got 0\)/ }] },
  'bench:store': {
    file: 'bench/store-scale.js',
    cases: [
      { args: ['--records=1000,x'], code: 2, says: /--records takes whole numbers of 1 or more, comma-separated \(got 1000,x\)\nusage: / },
      { args: ['--stores=mongo'], code: 2, says: /--stores takes embedded, postgres or both, comma-separated \(got mongo\)/ },
      { args: ['--samples=0'], code: 2, says: /--samples must be a whole number, 1 or more \(got 0\)/ },
      { args: ['--pg-port=70000'], code: 2, says: /--pg-port must be a port, 1 to 65535 \(got 70000\)/ },
    ],
  },
  attack: { file: 'attack/index.js', cases: [{ args: ['--only=nope'], code: 2, says: /no attack named nope/ }] },
  'build:cluster': { file: 'build-pglite-cluster.js', cases: [{ args: ['one', 'two'], code: 2, says: /unexpected argument two\nusage: node .*build-pglite-cluster\.js \[<dir>\]/ }] },
  'rehearse:container': { file: 'container/rehearse.js', cases: [{ args: ['extra'], code: 2, says: /unexpected argument extra/ }] },
  'check:docs': {
    file: 'docs/check-commands.js',
    cases: [
      { args: ['--timeout=x'], code: 2, says: /--timeout must be a whole number of seconds/ },
      { args: ['no-such.md'], code: 2, says: /is not a document of this checkout/ },
      { args: [path.join(ROOT, 'spec/fixtures/docs-check/placeholder.md')], code: 1, says: /looks like a placeholder/ },
      { args: [path.join(ROOT, 'spec/fixtures/docs-check/fails.md')], code: 1, says: /fails\.md:10 failed \(exit 2\)/ },
      { args: [path.join(ROOT, 'spec/fixtures/docs-check/runs.md')], code: 0, says: /ok {3}spec\/fixtures\/docs-check\/runs\.md/ },
    ],
  },
};

function run(file: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/scripts', file), ...args], {
    cwd: work.dir,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: path.join(work.dir, 'data'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('every command-line tool exits 0 on success, 1 when what it checks fails, 2 on a usage error', function () {
  this.timeout(120_000);
  before(async () => {
    ensureBuilt();
    work = await tempDir();
    for (const copy of ['defs', 'broken', 'invalid']) await fs.cp(path.join(ROOT, 'definitions/demo-todos'), path.join(at(copy), 'demo-todos'), { recursive: true });
    await fs.rm(path.join(at('broken'), 'demo-todos/versions/1/actions/get-todo.yaml'));
    await fs.rm(path.join(at('broken'), 'demo-todos/versions/1/actions/get-todo.test.yaml'));
    await fs.appendFile(path.join(at('invalid'), 'demo-todos/app.yaml'), 'colour: blue\n');
  });
  after(async () => {
    await work?.cleanup();
  });

  it('covers every tool package.json runs from scripts/', () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    const tools = Object.entries(scripts)
      .filter(([, command]) => /\bscripts\/[\w/.-]+\.ts\b/.test(command))
      .map(([name]) => name);
    expect(tools.filter((name) => !(name in TOOLS)), 'tools without exit-code cases').to.deep.equal([]);
    for (const [name, { file }] of Object.entries(TOOLS)) {
      expect(scripts[name], name).to.include(`scripts/${file.replace(/\.js$/, '.ts')}`);
    }
  });

  for (const [name, tool] of Object.entries(TOOLS)) {
    describe(`npm run ${name}`, () => {
      it('--help: the usage on stdout, exit 0', async () => {
        const { code, stdout } = await run(tool.file, ['--help']);
        expect(stdout).to.match(/^usage: /);
        expect(code).to.equal(0);
      });

      it('an unknown option: named, with the usage line, on stderr, exit 2', async () => {
        const { code, stderr, stdout } = await run(tool.file, ['--no-such-option']);
        expect(stderr).to.match(/unknown option --no-such-option/).and.match(/usage: /);
        expect(stdout).to.equal('');
        expect(code).to.equal(2);
      });

      for (const c of tool.cases) {
        it(`${c.args.join(' ') || '(nothing)'}${c.env ? ` with ${Object.entries(c.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}: exit ${c.code}`, async () => {
          await c.before?.();
          const { code, stdout, stderr } = await run(tool.file, c.args, c.env);
          const shown = `exit ${code}\nstdout: ${stdout.slice(0, 600)}\nstderr: ${stderr.slice(0, 600)}`;
          if (c.says) expect(c.code === 0 ? stderr || stdout : stderr + stdout, shown).to.match(c.says);
          if (c.code === 2) expect(stderr, `a usage error is said on stderr\n${shown}`).not.to.equal('');
          expect(code, shown).to.equal(c.code);
        });
      }
    });
  }
});
