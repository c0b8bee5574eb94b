import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { tempDir } from '../support/definition-fixtures.ts';
import { ROOT, runScript } from './run-script.ts';

/** Replaces `from` with `to` in one file (it must be there). */
async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  await fs.writeFile(file, text.replace(from, to));
}

/** The bundled GitHub app's version 1 copied into `<tree>/github`, published as the only version. */
async function copyGithub(tree: string): Promise<string> {
  const app = path.join(tree, 'github');
  await fs.cp(path.join(ROOT, 'definitions/github'), app, { recursive: true });
  await fs.rm(path.join(app, 'versions/2'), { recursive: true });
  const manifest = path.join(app, 'app.yaml');
  await fs.writeFile(manifest, (await fs.readFile(manifest, 'utf8')).replace(/^published: \d+$/m, 'published: 1'));
  return app;
}

/**
 * The issue's case: versions/1 copied to versions/2, and in version 2 the
 * delete-label action removed and list-issues' `since` argument made required.
 */
async function addBreakingVersion2(app: string): Promise<void> {
  await fs.cp(path.join(app, 'versions/1'), path.join(app, 'versions/2'), { recursive: true });
  await fs.rm(path.join(app, 'versions/2/actions/delete-label.yaml'));
  await fs.rm(path.join(app, 'versions/2/actions/delete-label.test.yaml'));
  await edit(path.join(app, 'versions/2/actions/list-issues.yaml'), '    location: Query\n    format: ISO8601', '    location: Query\n    required: true\n    format: ISO8601');
}

const BREAKING_ROWS = ['| **breaking** | action delete-label | removed |', '| **breaking** | action list-issues, argument since | now required |'];

describe('npm run diff between two versions of one app', function () {
  this.timeout(60_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('diff-versions-');
  });
  afterEach(() => tmp.remove());

  it('compares <folder>/<app>@1 with <folder>/<app>@2 as old and new: a removed action and an argument made required break, exit 1', async () => {
    await addBreakingVersion2(await copyGithub(path.join(tmp.dir, 'definitions')));
    const run = await runScript('diff.ts', ['definitions/github@1', 'definitions/github@2'], { cwd: tmp.dir });
    expect(run.stderr).to.equal('');
    expect(run.stdout).to.equal(
      [
        '## Definition changes: `definitions/github@1` → `definitions/github@2`',
        '',
        '**2 breaking, 0 noted, 0 compatible** (2 breaking in released versions).',
        '',
        '### github · version 1 → 2',
        '',
        '| | Where | Change |',
        '|---|---|---|',
        ...BREAKING_ROWS,
        '',
      ].join('\n'),
    );
    expect(run.code).to.equal(1);
  });

  it('marks each change with the version it is compared with in --json', async () => {
    await addBreakingVersion2(await copyGithub(path.join(tmp.dir, 'definitions')));
    const run = await runScript('diff.ts', ['definitions/github@1', 'definitions/github@2', '--json'], { cwd: tmp.dir });
    const json = JSON.parse(run.stdout);
    expect(json.summary).to.deep.equal({ breaking: 2, noted: 0, compatible: 0, breakingReleased: 2 });
    expect(json.changes[0]).to.deep.equal({
      app: 'github',
      version: '2',
      from: '1',
      released: true,
      subject: 'action',
      where: 'action delete-label',
      change: 'removed',
      severity: 'breaking',
      what: 'removed',
    });
    expect(run.code).to.equal(1);
  });

  it('accepts @published and @draft; breaking changes into a draft are reported but never fail', async () => {
    const app = await copyGithub(path.join(tmp.dir, 'definitions'));
    await addBreakingVersion2(app);
    const published = await runScript('diff.ts', ['definitions/github@published', 'definitions/github@2'], { cwd: tmp.dir });
    expect(published.stdout).to.include('### github · version 1 → 2\n');
    expect(published.code).to.equal(1);

    await fs.rename(path.join(app, 'versions/2'), path.join(app, 'versions/draft'));
    const draft = await runScript('diff.ts', ['definitions/github@1', 'definitions/github@draft'], { cwd: tmp.dir });
    expect(draft.stdout).to.include('**2 breaking, 0 noted, 0 compatible** (breaking only in draft, which never fails).');
    expect(draft.stdout).to.include(`### github · version 1 → draft\n\n| | Where | Change |\n|---|---|---|\n${BREAKING_ROWS.join('\n')}\n`);
    expect(draft.code).to.equal(0);
  });

  it('compares the same app in two trees, app fields included', async () => {
    await copyGithub(path.join(tmp.dir, 'old'));
    const app = await copyGithub(path.join(tmp.dir, 'new'));
    await edit(path.join(app, 'app.yaml'), 'name: GitHub', 'name: GitHub REST');
    const run = await runScript('diff.ts', ['old/github@1', 'new/github@1'], { cwd: tmp.dir });
    expect(run.stdout).to.include('### github\n\n| | Where | Change |\n|---|---|---|\n| compatible | app github | name GitHub → GitHub REST |\n');
    expect(run.code).to.equal(0);
  });

  it('reads a side from a git revision: <rev>:<folder>/<app>@<version>', async () => {
    const repo = path.join(tmp.dir, 'repo');
    const app = await copyGithub(path.join(repo, 'defs'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: repo, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'github');
    await addBreakingVersion2(app);
    // The working tree's version 1 differs from the revision's: only the revision's counts.
    await fs.rm(path.join(app, 'versions/1/actions/list-directory.yaml'));
    const run = await runScript('diff.ts', ['main:defs/github@1', 'defs/github@2'], { cwd: repo });
    expect(run.stderr).to.equal('');
    expect(run.stdout).to.include(`### github · version 1 → 2\n\n| | Where | Change |\n|---|---|---|\n${BREAKING_ROWS.join('\n')}\n`);
    expect(run.stdout).not.to.include('list-directory');
    expect(run.code).to.equal(1);
  });

  it('exits 2 with a clear message on an unknown app, an unknown version, two different apps or an app@version beside a whole tree', async function () {
    this.timeout(120_000);
    const app = await copyGithub(path.join(tmp.dir, 'definitions'));
    await addBreakingVersion2(app);
    await fs.cp(path.join(ROOT, 'definitions/slack'), path.join(tmp.dir, 'definitions/slack'), { recursive: true });
    const diff = (...sides: string[]) => runScript('diff.ts', sides, { cwd: tmp.dir });

    const unknownApp = await diff('definitions/gitlab@1', 'definitions/github@2');
    expect(unknownApp.stderr).to.match(/^definitions\/gitlab@1: no app folder definitions\/gitlab \(apps there: github, slack\)\nusage: npm run diff/);
    const unknownVersion = await diff('definitions/github@1', 'definitions/github@3');
    expect(unknownVersion.stderr).to.match(/^definitions\/github@3: github has no version 3 \(it has 1, 2\)\nusage: npm run diff/);
    const badVersion = await diff('definitions/github@v2', 'definitions/github@2');
    expect(badVersion.stderr).to.match(/^definitions\/github@v2: a version is a number, draft or published\nusage: npm run diff/);
    const noDraft = await diff('definitions/github@1', 'definitions/github@draft');
    expect(noDraft.stderr).to.match(/^definitions\/github@draft: github has no version draft \(it has 1, 2\)\n/);
    const twoApps = await diff('definitions/github@1', 'definitions/slack@1');
    expect(twoApps.stderr).to.match(/^definitions\/github@1 is app github and definitions\/slack@1 is app slack: compare two versions of one app\n/);
    const mixed = await diff('definitions/github@1', 'definitions');
    expect(mixed.stderr).to.match(/^definitions\/github@1 is one version of an app and definitions is a whole tree: give both sides as <folder>\/<app>@<version>, or neither\n/);
    const withDir = await diff('definitions/github@1', 'definitions/github@2', '--dir', 'definitions');
    expect(withDir.stderr).to.match(/^--dir is for whole-tree sides; a <folder>\/<app>@<version> side names its folder\n/);
    for (const run of [unknownApp, unknownVersion, badVersion, noDraft, twoApps, mixed, withDir]) expect(run).to.deep.include({ code: 2, stdout: '' });
  });

  it('exits 2 with the located problems when the app of an app@version side does not load (a problem in any of its versions)', async () => {
    const app = await copyGithub(path.join(tmp.dir, 'definitions'));
    await addBreakingVersion2(app);
    await edit(path.join(app, 'versions/2/actions/list-issues.yaml'), 'dataType: Date', 'dataType: Instant');
    const run = await runScript('diff.ts', ['definitions/github@1', 'definitions/github@2'], { cwd: tmp.dir });
    expect(run.stdout).to.equal('');
    const problem = /definitions\/github\/versions\/2\/actions\/list-issues\.yaml:\d+:\d+ SCHEMA_ENUM .*\n/.exec(run.stderr)?.[0];
    expect(run.stderr).to.equal(`definitions/github@1 does not load (1 problem):\n${problem}definitions/github@2 does not load (1 problem):\n${problem}`);
    expect(run.code).to.equal(2);
  });
});

describe('npm run diff: a published-version move inside one tree', function () {
  this.timeout(60_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('diff-published-');
    await copyGithub(path.join(tmp.dir, 'base'));
  });
  afterEach(() => tmp.remove());

  it('reports what clients of published now get, from the old published version to the new one, and fails when that breaks', async () => {
    const app = await copyGithub(path.join(tmp.dir, 'head'));
    await addBreakingVersion2(app);
    await edit(path.join(app, 'app.yaml'), 'published: 1', 'published: 2');
    const run = await runScript('diff.ts', ['base', 'head'], { cwd: tmp.dir });
    expect(run.stderr).to.equal('');
    expect(run.stdout).to.equal(
      [
        '## Definition changes: `base` → `head`',
        '',
        '**2 breaking, 0 noted, 2 compatible** (2 breaking in released versions).',
        '',
        '### github',
        '',
        '| | Where | Change |',
        '|---|---|---|',
        '| compatible | app github | published 1 → 2 |',
        '',
        '### github · published 1 → 2',
        '',
        '| | Where | Change |',
        '|---|---|---|',
        ...BREAKING_ROWS,
        '',
        '### github · version 2 (released)',
        '',
        '| | Where | Change |',
        '|---|---|---|',
        '| compatible | version 2 | added |',
        '',
      ].join('\n'),
    );
    expect(run.code).to.equal(1);
    const json = await runScript('diff.ts', ['base', 'head', '--json'], { cwd: tmp.dir });
    expect(JSON.parse(json.stdout).changes[1]).to.deep.include({ version: '2', from: '1', publishedMove: true, where: 'action delete-label', severity: 'breaking' });
  });

  it('passes a published move whose new version only adds', async () => {
    const app = await copyGithub(path.join(tmp.dir, 'head'));
    await fs.cp(path.join(app, 'versions/1'), path.join(app, 'versions/2'), { recursive: true });
    await edit(path.join(app, 'versions/2/actions/list-labels.yaml'), 'name: List labels', 'name: List repository labels');
    await edit(path.join(app, 'app.yaml'), 'published: 1', 'published: 2');
    const run = await runScript('diff.ts', ['base', 'head'], { cwd: tmp.dir });
    expect(run.stdout).to.include('### github · published 1 → 2\n\n| | Where | Change |\n|---|---|---|\n| compatible | action list-labels | name List labels → List repository labels |\n');
    expect(run.stdout).to.include('**0 breaking, 0 noted, 3 compatible** (nothing breaking).');
    expect(run.code).to.equal(0);
  });
});
