import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import { FS_WATCH, loadTreeWatcher, type TreeWatcher } from '../../../engine/core/definitions/tree-watcher.ts';
import { watchDefinitions } from '../../../engine/core/definitions/watch.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

/** Generous: a reload takes milliseconds, but CI machines stall. Polling ends as soon as the condition holds. */
const WITHIN_MS = 15_000;

interface Loaded {
  msg: string;
  reason: string;
  hash: string;
  incremental: boolean;
  read: number;
}

async function eventually(holds: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WITHIN_MS;
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`not within ${WITHIN_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const parcel = (await loadTreeWatcher(createLogger('silent')))!;

// The same guarantees through @parcel/watcher and through Node's recursive fs.watch, the fallback when parcel cannot load.
for (const tree of [parcel, FS_WATCH] as TreeWatcher[]) describe(`the definitions watcher (${tree.name})`, function () {
  this.timeout(WITHIN_MS * 3);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let registry: DefinitionsRegistry;
  let stop: () => Promise<void>;
  let loaded: Loaded[];
  const at = (file: string) => path.join(tmp.dir, file);
  /** True once the live snapshot is what a fresh full load of the folder gives. */
  const servesTheFolder = async () => registry.current().hash === (await new DefinitionsLoader().loadDirectory(tmp.dir)).hash;

  beforeEach(async () => {
    tmp = await tempDir('defs-watch-');
    await copyValid(tmp.dir);
    loaded = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        const line = JSON.parse(String(chunk));
        if (line.msg === 'definitions loaded') loaded.push(line);
        done();
      },
    });
    registry = new DefinitionsRegistry(tmp.dir, createLogger('info', stream));
    await registry.reload('start');
    stop = await watchDefinitions(registry, createLogger('silent'), undefined, undefined, tree);
  });
  afterEach(async () => {
    await stop();
    await tmp.remove();
  });

  it('reloads only the files a save changed', async () => {
    const before = registry.current().hash;
    const file = at('acme/versions/1/actions/list-lists.yaml');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: List lists', 'name: All lists'));
    await eventually(async () => registry.current().hash !== before && (await servesTheFolder()), 'the edit serves');
    expect(loaded.at(-1)).to.include({ reason: 'change acme/versions/1/actions/list-lists.yaml', incremental: true, read: 1 });
  });

  it('reloads everything after a folder appears', async () => {
    const before = registry.current().hash;
    await fs.cp(at('acme'), at('beta'), { recursive: true });
    await fs.writeFile(at('beta/app.yaml'), 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    await eventually(async () => registry.current().apps.has('beta') && (await servesTheFolder()), 'the new app serves');
    expect(registry.current().hash).to.not.equal(before);
    // The folder event makes a full reload; on a busy machine the files written after it may arrive in a later window of their own.
    expect(loaded.some((l) => l.reason !== 'start' && l.incremental === false)).to.equal(true);
  });

  it('reloads everything after a folder is removed: its app is gone', async () => {
    await fs.cp(at('acme'), at('beta'), { recursive: true });
    await fs.writeFile(at('beta/app.yaml'), 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    await eventually(async () => registry.current().apps.has('beta') && (await servesTheFolder()), 'the new app serves');
    const before = loaded.length;
    await fs.rm(at('beta'), { recursive: true });
    await eventually(async () => !registry.current().apps.has('beta') && (await servesTheFolder()), 'the app is gone');
    expect(loaded.slice(before).some((l) => l.incremental === false)).to.equal(true);
  });

  it('sees edits in folders made all at once inside a new folder', async () => {
    // As `mkdir -p` and a checkout do, without a turn of the event loop: the folders below the new one are made before the watcher hears of it.
    mkdirSync(at('beta/versions/1/actions'), { recursive: true });
    mkdirSync(at('beta/versions/1/auths'));
    for (const file of ['versions/1/api.yaml', 'versions/1/actions/list-lists.yaml', 'versions/1/auths/api-key.yaml']) copyFileSync(at(`acme/${file}`), at(`beta/${file}`));
    writeFileSync(at('beta/app.yaml'), 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    await eventually(async () => registry.current().apps.has('beta') && (await servesTheFolder()), 'the new app serves');
    const file = at('beta/versions/1/actions/list-lists.yaml');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: List lists', 'name: Beta lists'));
    await eventually(async () => registry.current().apps.get('beta')!.versions.get(1)!.actions.get('list-lists')!.name === 'Beta lists', 'the edit serves');
    expect(await servesTheFolder()).to.equal(true);
  });

  it('sees edits in a folder after it was renamed', async () => {
    await fs.rename(at('acme'), at('renamed'));
    await eventually(async () => registry.current().apps.has('acme') && (await servesTheFolder()) && loaded.at(-1)!.incremental === false, 'the rename serves');
    const file = at('renamed/versions/1/actions/list-lists.yaml');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: List lists', 'name: Renamed lists'));
    await eventually(async () => registry.current().apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.name === 'Renamed lists', 'the edit serves');
    expect(await servesTheFolder()).to.equal(true);
  });

  it('ignores hidden files and folders', async () => {
    await fs.mkdir(at('.git/refs'), { recursive: true });
    await fs.writeFile(at('.git/refs/main.yaml'), 'not: a definition\n');
    await fs.writeFile(at('acme/versions/1/actions/.list-lists.yaml.swp'), 'swap');
    const before = loaded.length;
    const file = at('acme/versions/1/actions/list-lists.yaml');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: List lists', 'name: All lists'));
    await eventually(async () => (await servesTheFolder()) && registry.current().apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.name === 'All lists', 'the edit serves');
    // Had a hidden path been seen, a reload would name it, or read every file for the new folder.
    for (const l of loaded.slice(before)) expect(l).to.include({ reason: 'change acme/versions/1/actions/list-lists.yaml', incremental: true, read: 1 });
  });

  it('reloads only the saved file when a save writes a temporary file and renames it over the definition (sed -i)', async () => {
    const before = loaded.length;
    const file = at('acme/versions/1/actions/list-lists.yaml');
    const temporary = at('acme/versions/1/actions/sedAb12Cd');
    await fs.writeFile(temporary, (await fs.readFile(file, 'utf8')).replace('name: List lists', 'name: Saved by rename'));
    await fs.rename(temporary, file);
    await eventually(async () => registry.current().apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.name === 'Saved by rename' && (await servesTheFolder()), 'the save serves');
    // The temporary file, gone when it is looked at, is no folder: no reload reads every file.
    for (const l of loaded.slice(before)) expect(l.incremental, l.reason).to.equal(true);
  });

  it('lets the gateway start when the folder is missing, saying so in the log, and loads it once it is made', async () => {
    const lines: { level: number; msg: string; dir?: string }[] = [];
    const log = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const missing = new DefinitionsRegistry(at('no-such-folder'), createLogger('silent'));
    const stopMissing = await watchDefinitions(missing, createLogger('info', log), undefined, undefined, tree);
    try {
      await missing.reload('start');
      expect(lines.map((l) => [l.level, l.msg, l.dir])).to.deep.include([40, 'definitions folder is missing: the last good snapshot, if any, keeps serving until it is back', at('no-such-folder')]);
      await copyValid(at('no-such-folder'));
      await eventually(async () => missing.status().appCount === 1 && missing.status().errorCount === 0, 'the folder made after the start serves');
      expect(lines.map((l) => [l.level, l.msg, l.dir])).to.deep.include([30, 'watching the definitions folder anew', at('no-such-folder')]);
    } finally {
      await stopMissing();
    }
  });

  it('serves the last write of a file written twice in quick succession', async () => {
    const file = at('acme/versions/1/actions/list-lists.yaml');
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, text.replace('name: List lists', 'name: First'));
    // After the debounce has read the first write, while the watcher holds the second one back to batch it.
    await new Promise((resolve) => setTimeout(resolve, 35));
    await fs.writeFile(file, text.replace('name: List lists', 'name: The second and last write'));
    await eventually(async () => registry.current().apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.name === 'The second and last write', 'the last write serves');
    expect(await servesTheFolder()).to.equal(true);
  });
});
