import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { copyValid, tempDir } from '../support/definition-fixtures.ts';
import { runScript } from './run-script.ts';

/** Replaces `from` with `to` in one file of a definitions folder (it must be there). */
async function edit(dir: string, file: string, from: string, to: string): Promise<void> {
  const full = path.join(dir, file);
  const text = await fs.readFile(full, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  await fs.writeFile(full, text.replace(from, to));
}

const LIST_CONTACTS = 'acme/versions/1/actions/list-contacts.yaml';

describe('npm run diff (command)', function () {
  // A hang guard, not a speed target: each command loads two sides of the whole definitions folder (64 apps), 3 s on a quiet machine and past 30 s at load 12.
  this.timeout(120_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('diff-cli-');
    await copyValid(path.join(tmp.dir, 'base'));
    await copyValid(path.join(tmp.dir, 'head'));
  });
  afterEach(() => tmp.remove());

  it('prints a Markdown comment, breaking first within each version, and exits 1 for a breaking change in a released version', async () => {
    await edit(path.join(tmp.dir, 'head'), LIST_CONTACTS, 'default: 50', 'default: 25');
    await edit(path.join(tmp.dir, 'head'), LIST_CONTACTS, 'location: Query\n    multipleValues', 'location: Body\n    multipleValues');
    await edit(path.join(tmp.dir, 'head'), 'acme/app.yaml', 'name: Acme CRM', 'name: Acme');
    const run = await runScript('diff.ts', ['base', 'head'], { cwd: tmp.dir });
    expect(run.stdout).to.equal(
      [
        '## Definition changes: `base` → `head`',
        '',
        '**1 breaking, 1 noted, 1 compatible** (1 breaking in released versions).',
        '',
        '### acme',
        '',
        '| | Where | Change |',
        '|---|---|---|',
        '| compatible | app acme | name Acme CRM → Acme |',
        '',
        '### acme · version 1 (released)',
        '',
        '| | Where | Change |',
        '|---|---|---|',
        '| **breaking** | action list-contacts, argument tags | location Query → Body |',
        '| noted | action list-contacts, argument pageSize | hidden default 50 → 25 |',
        '',
      ].join('\n'),
    );
    expect(run.code).to.equal(1);
  });

  it('prints JSON with --json: the summary and every change', async () => {
    await edit(path.join(tmp.dir, 'head'), LIST_CONTACTS, 'default: 50', 'default: 25');
    const run = await runScript('diff.ts', ['--json', 'base', 'head'], { cwd: tmp.dir });
    expect(run.code).to.equal(0);
    expect(JSON.parse(run.stdout)).to.deep.equal({
      base: 'base',
      head: 'head',
      summary: { breaking: 0, noted: 1, compatible: 0, breakingReleased: 0 },
      changes: [
        {
          app: 'acme',
          version: '1',
          released: true,
          subject: 'argument',
          where: 'action list-contacts, argument pageSize',
          change: 'changed',
          severity: 'noted',
          what: 'hidden default 50 → 25',
        },
      ],
    });
  });

  it('exits 0 when breaking changes are only in draft, and says so', async () => {
    for (const side of ['base', 'head']) await fs.cp(path.join(tmp.dir, side, 'acme/versions/1'), path.join(tmp.dir, side, 'acme/versions/draft'), { recursive: true });
    await fs.rm(path.join(tmp.dir, 'head/acme/versions/draft/actions/create-contact.yaml'));
    const run = await runScript('diff.ts', ['base', 'head'], { cwd: tmp.dir });
    expect(run.stdout).to.include('**1 breaking, 0 noted, 0 compatible** (breaking only in draft, which never fails).');
    expect(run.stdout).to.include('### acme · version draft\n');
    expect(run.code).to.equal(0);
  });

  it('says there is nothing to review when the meaning did not change', async () => {
    await edit(path.join(tmp.dir, 'head'), 'acme/app.yaml', 'id: acme\n', '# reformatted\nid: acme\n');
    const run = await runScript('diff.ts', ['base', 'head'], { cwd: tmp.dir });
    expect(run).to.deep.equal({ code: 0, stdout: '## Definition changes: `base` → `head`\n\nNo changes in meaning.\n', stderr: '' });
  });

  it('exits 2 with the located problems when a side does not load', async () => {
    await edit(path.join(tmp.dir, 'head'), LIST_CONTACTS, 'dataType: Number', 'dataType: Integer');
    const run = await runScript('diff.ts', ['base', 'head'], { cwd: tmp.dir });
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.equal(
      'head does not load (1 problem):\nhead/acme/versions/1/actions/list-contacts.yaml:19:15 SCHEMA_ENUM arguments[1].dataType must be one of String, Number, Boolean, Date, Object, Array, List (got "Integer")\n',
    );
    expect(run.code).to.equal(2);
  });

  it('exits 2 on a usage error or a side that is neither a folder nor a revision', async () => {
    const one = await runScript('diff.ts', ['base'], { cwd: tmp.dir });
    expect(one.code).to.equal(2);
    expect(one.stderr).to.equal('missing <head>\nusage: npm run diff -- [--json] [--dir <definitions folder>] <base> <head>\n');
    const nowhere = await runScript('diff.ts', ['base', 'nowhere'], { cwd: tmp.dir });
    expect(nowhere.code).to.equal(2);
    expect(nowhere.stderr).to.match(/^nowhere is neither a folder nor a git revision\n/);
  });

  it('compares two git revisions of the definitions folder, reading their trees without a checkout', async () => {
    const repo = path.join(tmp.dir, 'repo');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: repo, stdio: 'pipe' });
    await copyValid(path.join(repo, 'defs'));
    await fs.writeFile(path.join(repo, 'README.md'), 'not a definition\n');
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'acme');
    await fs.rm(path.join(repo, 'defs/acme/versions/1/actions/create-contact.yaml'));
    git('commit', '-q', '-am', 'drop create-contact');
    // The working tree differs from both revisions: only the revisions' trees count.
    await fs.rm(path.join(repo, 'defs'), { recursive: true });

    const run = await runScript('diff.ts', ['main~1', 'main', '--dir', 'defs'], { cwd: repo });
    expect(run.stdout).to.include('| **breaking** | action create-contact | removed |');
    expect(run.code).to.equal(1);
    const json = await runScript('diff.ts', ['HEAD~1', 'HEAD', '--json'], { cwd: repo, env: { DEFINITIONS_DIR: 'defs' } });
    expect(JSON.parse(json.stdout).summary).to.deep.equal({ breaking: 1, noted: 0, compatible: 0, breakingReleased: 1 });
  });
});
