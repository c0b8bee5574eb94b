import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { nameFromSlug, scaffoldFiles } from '../../engine/authoring/app-scaffold.ts';
import { loadDefinitions } from '../../engine/core/definitions/loader.ts';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';
import { ROOT, runScript } from './run-script.ts';

describe('npm run new-app', function () {
  this.timeout(30_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('new-app-');
  });
  afterEach(() => tmp.remove());

  it('scaffolds an app folder that passes validate and fmt --check as generated', async () => {
    const run = await runScript('new-app.ts', ['acme-crm', '--name', 'Acme CRM', '--dir', 'definitions'], { cwd: tmp.dir });
    expect(run.stderr).to.equal('');
    expect(run.stdout).to.equal(
      [
        'Created definitions/acme-crm:',
        '  definitions/acme-crm/app.yaml',
        '  definitions/acme-crm/versions/draft/api.yaml',
        '  definitions/acme-crm/versions/draft/auths/api-key.yaml',
        '  definitions/acme-crm/versions/draft/actions/list-items.yaml',
        '  definitions/acme-crm/versions/draft/actions/list-items.test.yaml',
        '',
        'Next: point api.yaml, the auth and the action at the provider, write test cases beside each action, then',
        '  npm run validate -- definitions',
        '  npm run fmt -- definitions',
        '  npm run test:definitions -- acme-crm',
        '',
      ].join('\n'),
    );
    expect(run.code).to.equal(0);

    const validate = await runScript('validate.ts', ['definitions'], { cwd: tmp.dir });
    expect(validate.stdout).to.match(/^ok: definitions has 1 apps, 1 versions, 1 actions in 4 files/);
    expect(validate.code).to.equal(0);
    const fmt = await runScript('fmt.ts', ['--check', 'definitions'], { cwd: tmp.dir });
    expect(fmt).to.deep.include({ code: 0, stdout: '', stderr: 'ok: 4 files canonical\n' });

    const app = parse(await fs.readFile(path.join(tmp.dir, 'definitions/acme-crm/app.yaml'), 'utf8'));
    expect(app).to.deep.equal({ id: 'acme-crm', slug: 'acme-crm', name: 'Acme CRM', description: 'What Acme CRM is, for people choosing it.', website: 'https://api.example.com/docs' });
  });

  it('writes the action\'s offline test cases in the documented format', async () => {
    await runScript('new-app.ts', ['acme-crm'], { cwd: tmp.dir });
    const cases = parse(await fs.readFile(path.join(tmp.dir, 'definitions/acme-crm/versions/draft/actions/list-items.test.yaml'), 'utf8'));
    expect(cases.cases).to.have.length(2);
    expect(cases.cases[0]).to.deep.equal({
      name: 'lists the first page',
      connection: { credentials: { apiKey: 'test-key' } },
      arguments: { limit: 2 },
      request: { method: 'GET', url: 'https://api.example.com/items', query: { limit: '2' }, headers: { authorization: 'Bearer test-key' }, body: null },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: { items: [{ id: 1, name: 'First' }], next: 'abc' } },
      expect: { success: true, data: [{ id: 1, name: 'First' }], meta: { cursor: 'abc' } },
    });
  });

  it('adds to an existing folder beside its apps, and the whole folder still loads', async () => {
    const dir = path.join(tmp.dir, 'definitions');
    await copyValid(dir);
    const run = await runScript('new-app.ts', ['wrike', '--dir', dir], { cwd: tmp.dir });
    expect(run.code).to.equal(0);
    const loaded = await loadDefinitions(dir);
    expect(loaded.ok && [...loaded.snapshot.apps.keys()].sort()).to.deep.equal(['acme', 'wrike']);
    expect(loaded.ok && loaded.snapshot.apps.get('wrike')!.name).to.equal('Wrike');
  });

  it('with --dir, prints next commands that name that folder, and each works as printed', async function () {
    this.timeout(120_000);
    const run = await runScript('new-app.ts', ['acme', '--dir', 'some/folder'], { cwd: tmp.dir });
    expect(run.stderr).to.equal('');
    const next = run.stdout.slice(run.stdout.indexOf('Next:'));
    expect(next).to.equal(
      [
        'Next: point api.yaml, the auth and the action at the provider, write test cases beside each action, then',
        '  npm run validate -- some/folder',
        '  npm run fmt -- some/folder',
        '  npm run test:definitions -- acme --dir some/folder',
        '',
      ].join('\n'),
    );
    expect(run.code).to.equal(0);
    const scripts: Record<string, string> = { validate: 'validate.ts', fmt: 'fmt.ts', 'test:definitions': 'test-definitions.ts' };
    const commands = next.split('\n').filter((line) => line.startsWith('  npm run '));
    expect(commands).to.have.length(3);
    for (const command of commands) {
      const [, script, args] = /^ {2}npm run (\S+) -- (.*)$/.exec(command)!;
      const ran = await runScript(scripts[script!]!, args!.split(' '), { cwd: tmp.dir });
      expect(ran, command).to.deep.include({ code: 0 });
      // Each command worked on the new app's folder, not on ./definitions (there is none here).
      expect(ran.stdout + ran.stderr, command).not.to.include('definitions');
    }
  });

  it('prints a folder with a space quoted, so the printed command still works when pasted', async function () {
    this.timeout(60_000);
    const run = await runScript('new-app.ts', ['acme', '--dir', 'my apps'], { cwd: tmp.dir });
    expect(run.stdout).to.include("  npm run validate -- 'my apps'\n");
    expect(run.stdout).to.include("  npm run test:definitions -- acme --dir 'my apps'\n");
    const validate = await runScript('validate.ts', ['my apps'], { cwd: tmp.dir });
    expect(validate.code).to.equal(0);
  });

  it('refuses an id or slug the bundled definitions/ already use, even for another folder, naming where (exit 2, nothing written)', async () => {
    const github = await runScript('new-app.ts', ['github', '--dir', 'elsewhere'], { cwd: tmp.dir });
    // Named relative to where the command runs when inside it, else by its absolute path.
    const near = (file: string) => (path.relative(tmp.dir, file).startsWith('..') ? file : path.relative(tmp.dir, file));
    const bundled = near(path.join(ROOT, 'definitions/github/app.yaml'));
    expect(github).to.deep.equal({ code: 2, stdout: '', stderr: `${bundled} (the bundled definitions) already uses "github" as its id or slug\n` });
    const demo = await runScript('new-app.ts', ['demo-todos'], { cwd: tmp.dir });
    expect(demo.code).to.equal(2);
    expect(demo.stderr).to.equal(`${near(path.join(ROOT, 'definitions/demo-todos/app.yaml'))} (the bundled definitions) already uses "demo-todos" as its id or slug\n`);
    expect(await fs.readdir(tmp.dir)).to.deep.equal([]);
  });

  it('puts an editor modeline in each definition file when the app is inside this repository', () => {
    const files = scaffoldFiles('acme', 'Acme', path.join(ROOT, 'definitions/acme'));
    expect(files.get('app.yaml')).to.match(/^# yaml-language-server: \$schema=\.\.\/\.\.\/schemas\/app\.schema\.json\n/);
    expect(files.get('versions/draft/actions/list-items.yaml')).to.match(/^# yaml-language-server: \$schema=\.\.\/\.\.\/\.\.\/\.\.\/\.\.\/schemas\/action\.schema\.json\n/);
    expect(nameFromSlug('acme-crm')).to.equal('Acme Crm');
  });

  it('refuses an existing folder, an invalid slug, a taken id and a usage error with exit 2, writing nothing', async () => {
    const dir = path.join(tmp.dir, 'definitions');
    await copyValid(dir);
    const existing = await runScript('new-app.ts', ['acme', '--dir', 'definitions'], { cwd: tmp.dir });
    expect(existing).to.deep.equal({ code: 2, stdout: '', stderr: 'definitions/acme already exists; choose another slug or remove it first\n' });
    const invalid = await runScript('new-app.ts', ['Acme_CRM'], { cwd: tmp.dir });
    expect(invalid).to.deep.equal({
      code: 2,
      stdout: '',
      stderr: '"Acme_CRM" is not a valid app slug: use kebab-case, lowercase letters and digits joined by single hyphens (acme-crm)\n',
    });
    const taken = await runScript('new-app.ts', ['acme-crm', '--dir', 'definitions'], { cwd: tmp.dir });
    expect(taken).to.deep.equal({ code: 2, stdout: '', stderr: 'definitions/acme/app.yaml already uses "acme-crm" as its id or slug\n' });
    const usage = await runScript('new-app.ts', [], { cwd: tmp.dir });
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.equal('missing <slug>\nusage: npm run new-app -- [--name "Display Name"] [--dir <folder>] <slug>\n');
    expect((await fs.readdir(dir)).sort()).to.deep.equal(['acme']);
  });

  it('refuses a --dir it cannot write in with exit 2 and one line naming the folder, never a stack trace', async () => {
    await fs.writeFile(path.join(tmp.dir, 'a-file'), 'not a folder\n');
    const under = await runScript('new-app.ts', ['ok-app', '--dir', 'a-file/defs'], { cwd: tmp.dir });
    expect(under).to.deep.equal({ code: 2, stdout: '', stderr: "cannot write a-file/defs/ok-app: ENOTDIR: not a directory, mkdir 'a-file/defs'; nothing was written\n" });
  });

  it('refuses a --dir in a file system that takes no new folders (/proc) at once, rather than hanging', async function () {
    if (!(await fs.stat('/proc/1').catch(() => null))) this.skip();
    // Node's recursive mkdir never returned on /proc/1/ok-app: the command waited for ever.
    const started = Date.now();
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/new-app.ts'), 'ok-app', '--dir', '/proc/1'], { cwd: ROOT, timeout: 15_000 }, (error, _stdout, stderr) =>
        resolve({ code: error ? (child.killed ? -1 : Number(error.code)) : 0, stderr }),
      );
    });
    expect(Date.now() - started).to.be.below(15_000);
    expect(run).to.deep.equal({ code: 2, stderr: 'cannot write /proc/1/ok-app: ENOENT: no such file or directory, mkdir \'/proc/1/ok-app\'; nothing was written\n' });
  });

  it('does not wait on an app.yaml that is a FIFO beside the apps: it is left to validate, and the app is written', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = path.join(tmp.dir, 'definitions');
    await fs.mkdir(path.join(dir, 'odd'), { recursive: true });
    await new Promise<void>((resolve, reject) => execFile('mkfifo', [path.join(dir, 'odd/app.yaml')], (error) => (error ? reject(error) : resolve())));
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/new-app.ts'), 'ok-app', '--dir', dir], { cwd: ROOT, timeout: 15_000 }, (error, _stdout, stderr) =>
        resolve({ code: error ? (child.killed ? -1 : Number(error.code)) : 0, stderr }),
      );
    });
    expect(run).to.deep.equal({ code: 0, stderr: '' });
    expect((await fs.readdir(dir)).sort()).to.deep.equal(['odd', 'ok-app']);
  });
});
