import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { DefinitionsLoader, type LoadResult } from '../../../engine/core/definitions/loader.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

/**
 * Everything a load result says, as plain data: maps as entry lists, compiled
 * expressions as their source and place (the jsonata object is left out), and
 * no load time. Two results with equal views serve the same definitions.
 */
function view(result: LoadResult): unknown {
  const { snapshot, stats: _stats, ...rest } = result;
  const apps = snapshot && [...snapshot.apps.values()];
  const slugs = snapshot && [...snapshot.appsBySlug.keys()];
  return JSON.parse(
    JSON.stringify({ ...rest, fileCount: snapshot?.fileCount, apps, slugs }, (key, value) => (value instanceof Map ? [...value] : key === 'expression' ? undefined : value)),
  );
}

describe('incremental reloads (only the changed paths read again)', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let loader: DefinitionsLoader;
  const at = (file: string) => path.join(tmp.dir, file);
  const write = async (file: string, text: string) => {
    await fs.mkdir(path.dirname(at(file)), { recursive: true });
    await fs.writeFile(at(file), text);
  };
  const replace = async (file: string, from: string, to: string) => {
    const text = await fs.readFile(at(file), 'utf8');
    expect(text).to.contain(from);
    await fs.writeFile(at(file), text.replace(from, to));
  };

  /** Reloads `changed` incrementally and checks the result against a fresh full load of the same folder. */
  async function reloadAndCompare(changed: string[]): Promise<LoadResult> {
    const incremental = await loader.loadDirectory(tmp.dir, changed.map(at));
    const full = await new DefinitionsLoader().loadDirectory(tmp.dir);
    expect(view(incremental)).to.deep.equal(view(full));
    expect(incremental.stats.incremental).to.equal(true);
    return incremental;
  }

  beforeEach(async () => {
    tmp = await tempDir('defs-incremental-');
    await copyValid(tmp.dir);
    loader = new DefinitionsLoader();
    expect((await loader.loadDirectory(tmp.dir)).ok).to.equal(true);
  });
  afterEach(() => tmp.remove());

  it('gives what a full load gives after edits, additions and deletions, reading and re-checking only what changed', async () => {
    const listLists = 'acme/versions/1/actions/list-lists.yaml';
    const edited = await reloadAndCompare([listLists]);
    expect(edited.snapshot!.apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.name).to.equal('List lists');
    await replace(listLists, 'name: List lists', 'name: All lists');
    const renamed = await reloadAndCompare([listLists]);
    expect(renamed.snapshot!.apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.name).to.equal('All lists');
    expect(renamed.stats).to.include({ files: 6, read: 1, analysed: 1, appsChecked: 1 });

    // A second app, and a new action in the first.
    await fs.cp(at('acme'), at('beta'), { recursive: true });
    await write('beta/app.yaml', 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    await write('acme/versions/1/actions/list-tags.yaml', 'id: list-tags\nslug: list-tags\nname: List tags\noperation: list\nmethod: GET\npath: /tags\n');
    const betaFiles = (await fs.readdir(at('beta'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.relative(tmp.dir, path.join(e.parentPath, e.name)));
    const added = await reloadAndCompare([...betaFiles, 'acme/versions/1/actions/list-tags.yaml']);
    expect([...added.snapshot!.apps.keys()]).to.deep.equal(['acme', 'beta']);
    expect(added.stats).to.include({ files: 13, read: 7, appsChecked: 2 });

    // An edit in one app re-checks and rebuilds that app only: the other app's entry is the very same object.
    await replace('beta/versions/1/actions/list-contacts.yaml', 'name: List contacts', 'name: Beta contacts');
    const betaEdited = await reloadAndCompare(['beta/versions/1/actions/list-contacts.yaml']);
    expect(betaEdited.stats).to.include({ read: 1, appsChecked: 1 });
    expect(betaEdited.snapshot!.apps.get('acme')).to.equal(added.snapshot!.apps.get('acme'));
    expect(betaEdited.snapshot!.apps.get('beta')).to.not.equal(added.snapshot!.apps.get('beta'));

    await fs.rm(at('acme/versions/1/actions/create-contact.yaml'));
    const deleted = await reloadAndCompare(['acme/versions/1/actions/create-contact.yaml']);
    expect([...deleted.snapshot!.apps.get('acme')!.versions.get(1)!.actions.keys()]).to.deep.equal(['list-contacts', 'list-lists', 'list-tags']);
    expect(deleted.stats).to.include({ files: 12, read: 0 });

    // A whole app folder removed, file by file.
    await fs.rm(at('beta'), { recursive: true });
    const removed = await reloadAndCompare(betaFiles);
    expect([...removed.snapshot!.apps.keys()]).to.deep.equal(['acme']);
  });

  it('reports the problems a full load reports while a file is invalid, and serves again once it is valid', async () => {
    const listLists = 'acme/versions/1/actions/list-lists.yaml';
    await replace(listLists, 'method: GET', 'method: FETCH');
    const invalid = await reloadAndCompare([listLists]);
    expect(invalid.problems.map((p) => p.code)).to.deep.equal(['SCHEMA_ENUM']);

    // Half-written: not even YAML.
    await write(listLists, 'id: list-lists\nslug: [list-lists\n');
    expect((await reloadAndCompare([listLists])).problems.map((p) => p.code)).to.include('YAML_SYNTAX');

    await replace('acme/versions/1/actions/list-lists.yaml', 'slug: [list-lists\n', 'slug: list-lists\nname: List lists\noperation: list\nmethod: GET\npath: /lists\n');
    expect((await reloadAndCompare([listLists])).ok).to.equal(true);
  });

  it('still finds an app id or slug used twice across app folders when only one of them changed', async () => {
    await fs.cp(at('acme'), at('beta'), { recursive: true });
    await write('beta/app.yaml', 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    const betaFiles = (await fs.readdir(at('beta'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.relative(tmp.dir, path.join(e.parentPath, e.name)));
    await reloadAndCompare(betaFiles);

    await write('beta/app.yaml', 'id: acme\nslug: beta\nname: Beta\npublished: 1\n');
    expect((await reloadAndCompare(['beta/app.yaml'])).problems.map((p) => [p.file, p.code])).to.deep.equal([['beta/app.yaml', 'APP_ID_DUPLICATE']]);
    await write('beta/app.yaml', 'id: beta\nslug: beta\nname: Beta\npublished: 2\n');
    expect((await reloadAndCompare(['beta/app.yaml'])).problems.map((p) => [p.file, p.code])).to.deep.equal([['beta/app.yaml', 'PUBLISHED_VERSION_MISSING']]);
    await write('beta/app.yaml', 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    expect((await reloadAndCompare(['beta/app.yaml'])).ok).to.equal(true);
  });

  it('orders apps as a full load does, and reports a stray file until it goes', async () => {
    // "acme-x/..." sorts before "acme/...": the new app comes first.
    await fs.cp(at('acme'), at('acme-x'), { recursive: true });
    await write('acme-x/app.yaml', 'id: acme-x\nslug: acme-x\nname: Acme X\npublished: 1\n');
    const files = (await fs.readdir(at('acme-x'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.relative(tmp.dir, path.join(e.parentPath, e.name)));
    const added = await reloadAndCompare(files);
    expect([...added.snapshot!.apps.keys()]).to.deep.equal(['acme-x', 'acme']);

    await write('stray.yaml', 'id: stray\n');
    await write('acme/notes.yaml', 'id: notes\n');
    const stray = await reloadAndCompare(['stray.yaml', 'acme/notes.yaml']);
    expect(stray.problems.map((p) => [p.file, p.code])).to.deep.equal([
      ['acme/notes.yaml', 'FILE_UNEXPECTED'],
      ['stray.yaml', 'FILE_UNEXPECTED'],
    ]);
    await fs.rm(at('stray.yaml'));
    await fs.rm(at('acme/notes.yaml'));
    expect((await reloadAndCompare(['stray.yaml', 'acme/notes.yaml'])).ok).to.equal(true);
  });

  it('reads nothing for paths a full load would not read: other files, hidden ones, action tests, folders, under a symlinked folder', async () => {
    const before = await reloadAndCompare([]);
    await write('README.md', '# notes\n');
    await write('.drafts/x/app.yaml', 'id: x\n');
    await write('acme/versions/1/actions/list-lists.test.yaml', 'cases: []\n');
    await fs.mkdir(at('acme/versions/1/actions/folder.yaml'));
    // A full listing does not descend into a symlinked folder.
    await fs.symlink(at('acme/versions/1'), at('acme/versions/2'));
    const after = await reloadAndCompare([
      'README.md',
      '.drafts/x/app.yaml',
      'acme/versions/1/actions/list-lists.test.yaml',
      'acme/versions/1/actions/folder.yaml',
      'acme/versions/2/api.yaml',
    ]);
    expect(after.stats).to.include({ read: 0, appsChecked: 0 });
    expect(after.hash).to.equal(before.hash);
  });

  it('falls back to reading everything for a path outside the folder, and before any full read', async () => {
    const outside = await loader.loadDirectory(tmp.dir, [path.join(tmp.dir, '..', 'elsewhere.yaml')]);
    expect(outside.stats).to.include({ incremental: false, read: 6 });
    const fresh = await new DefinitionsLoader().loadDirectory(tmp.dir, [at('acme/app.yaml')]);
    expect(fresh.stats).to.include({ incremental: false, read: 6 });
  });
});

describe('queued reloads with changed paths', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-queued-');
    await copyValid(tmp.dir);
  });
  afterEach(() => tmp.remove());

  it('merges the changed paths of asks that join a queued load, and reads everything if one ask did not say', async () => {
    const real = new DefinitionsLoader();
    const asked: (string[] | undefined)[] = [];
    const gates: (() => void)[] = [];
    // A loader that waits for the test to let each load start, so "while one runs" is certain.
    const loader = {
      loadDirectory: async (dir: string, changed?: readonly string[]) => {
        asked.push(changed && [...changed].map((f) => path.relative(dir, f)).sort());
        await new Promise<void>((resolve) => gates.push(resolve));
        return real.loadDirectory(dir, changed);
      },
    };
    const nextGate = async () => {
      while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
      gates.shift()!();
    };
    const registry = new DefinitionsRegistry(tmp.dir, createLogger('silent'), loader);
    const file = (name: string) => `acme/versions/1/actions/${name}.yaml`;
    const edit = async (name: string, to: string) => {
      const text = await fs.readFile(path.join(tmp.dir, file(name)), 'utf8');
      await fs.writeFile(path.join(tmp.dir, file(name)), text.replace(/^name: .*$/m, `name: ${to}`));
    };

    const start = registry.reload('start');
    await nextGate();
    await start;

    await edit('list-lists', 'Lists 1');
    const first = registry.reload('a', [path.join(tmp.dir, file('list-lists'))]);
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // While "a" runs, two more saves: both join one queued load, which must read both files.
    await edit('list-contacts', 'Contacts 2');
    const second = registry.reload('b', [path.join(tmp.dir, file('list-contacts'))]);
    await edit('create-contact', 'Create 3');
    expect(registry.reload('c', [path.join(tmp.dir, file('create-contact'))])).to.equal(second);
    await nextGate();
    await first;
    await nextGate();
    const merged = await second;
    expect(asked).to.deep.equal([undefined, [file('list-lists')], [file('create-contact'), file('list-contacts')]]);
    expect(merged.stats).to.include({ incremental: true, read: 2 });
    const full = await new DefinitionsLoader().loadDirectory(tmp.dir);
    expect(registry.current().hash).to.equal(full.hash);
    expect(view(merged)).to.deep.equal(view(full));

    // An ask without paths (SIGHUP) joining makes the queued load a full one.
    const third = registry.reload('d', [path.join(tmp.dir, file('list-lists'))]);
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const fourth = registry.reload('e', [path.join(tmp.dir, file('list-contacts'))]);
    expect(registry.reload('SIGHUP')).to.equal(fourth);
    await nextGate();
    await third;
    await nextGate();
    expect((await fourth).stats).to.include({ incremental: false });
    expect(asked.at(-1)).to.equal(undefined);
  });
});
