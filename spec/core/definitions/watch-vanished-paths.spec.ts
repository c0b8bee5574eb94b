import { mkdirSync, renameSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import { loadTreeWatcher, type TreeWatcher } from '../../../engine/core/definitions/tree-watcher.ts';
import { watchDefinitions } from '../../../engine/core/definitions/watch.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';
import { eventually, WITHIN_MS } from '../../support/eventually.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const FAILED = 'watching definitions failed; SIGHUP still reloads';
/** The folder checks' period: longer than any wait here, so only the watcher itself can resume watching. */
const NO_PERIODIC_CHECK_MS = 10 * 60_000;

interface Line {
  level: number;
  msg: string;
  reason?: string;
  err?: { message: string };
}

const parcel = (await loadTreeWatcher(createLogger('silent')))!;

/**
 * @parcel/watcher crawls the whole tree when it starts watching (after a
 * folder appears, the watcher starts again so the folders made inside it are
 * watched too), and its start fails when a folder it found is gone by the
 * time it is watched: "inotify_add_watch on '<folder>' failed: No such file
 * or directory", or the crawl's bare "No such file or directory". During a
 * storm of renames the gateway logged that as "watching definitions failed;
 * SIGHUP still reloads" (3 warnings in 300 rounds of renaming an app folder
 * and an app.yaml back and forth), and the tree went unwatched until the
 * next folder check, up to 3 s later. A path that vanished is a change of
 * the tree: the watcher starts again once it settles and reloads everything;
 * a real failure is still a warning.
 */
describe('the definitions watcher when paths vanish while it watches anew', function () {
  this.timeout(WITHIN_MS * 4);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let registry: DefinitionsRegistry;
  let stop: (() => Promise<void>) | undefined;
  let logs: ReturnType<typeof captureLogs>;
  const at = (file: string) => path.join(tmp.dir, file);
  const lines = () => logs.lines().map((line) => JSON.parse(line) as Line);
  const servesTheFolder = async () => registry.current().hash === (await new DefinitionsLoader().loadDirectory(tmp.dir)).hash;
  const start = async (tree: TreeWatcher) => {
    registry = new DefinitionsRegistry(tmp.dir, logs.logger);
    await registry.reload('start');
    stop = await watchDefinitions(registry, logs.logger, undefined, NO_PERIODIC_CHECK_MS, tree);
  };
  const rename = async (file: string, name: string) => {
    const target = at(file);
    await fs.writeFile(target, (await fs.readFile(target, 'utf8')).replace(/^name: .*$/m, `name: ${name}`));
  };

  beforeEach(async () => {
    tmp = await tempDir('defs-vanished-');
    logs = captureLogs();
    stop = undefined;
  });
  afterEach(async () => {
    await stop?.();
    await tmp.remove();
  });

  /** Parcel, whose next `failures` starts (after the first) fail with `message`, as when a folder vanished under its crawl. */
  const failing = (failures: number, message: (root: string) => string): TreeWatcher & { calls: number } => {
    const tree = {
      name: parcel.name,
      calls: 0,
      subscribe: async (root: string, onEvents: Parameters<TreeWatcher['subscribe']>[1]) => {
        tree.calls++;
        if (tree.calls > 1 && tree.calls <= 1 + failures) throw new Error(message(root));
        return parcel.subscribe(root, onEvents);
      },
    };
    return tree;
  };

  it('a folder gone when it was to be watched: no warning, watched again at once (not at the next folder check), everything reloaded', async () => {
    await copyValid(tmp.dir);
    const tree = failing(2, (root) => `inotify_add_watch on '${root}/beta/versions/1' failed: No such file or directory`);
    await start(tree);
    // A folder appearing makes the watcher start again, which fails twice as if a folder vanished under it.
    await fs.cp(at('acme'), at('beta'), { recursive: true });
    await fs.writeFile(at('beta/app.yaml'), 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    await eventually(
      async () => registry.current().apps.has('beta') && (await servesTheFolder()),
      (holds) => holds,
      'the new app serves',
    );
    await eventually(
      async () => tree.calls,
      (calls) => calls >= 4,
      'watching started again after the two failures',
    );
    // Watched again: an edit is seen, long before any folder check would have looked.
    await rename('beta/versions/1/actions/list-lists.yaml', 'Beta lists');
    await eventually(
      async () => registry.current().apps.get('beta')?.versions.get(1)?.actions.get('list-lists')?.name,
      (name) => name === 'Beta lists',
      'the edit serves',
    );
    // Warnings only: a reload in the middle of the copy may see beta half-made (its app.yaml not yet written), an error it keeps the last snapshot for.
    expect(lines().filter((l) => l.level === 40)).to.deep.equal([]);
    expect(lines().filter((l) => l.msg === 'definitions loaded' && l.reason !== 'start').some((l) => /a path vanished while watching restarted/.test(l.reason!))).to.equal(true);
  });

  it('a watcher that fails for another reason (no inotify watches left) is still a warning', async () => {
    await copyValid(tmp.dir);
    const tree = failing(1, (root) => `inotify_add_watch on '${root}/beta' failed: No space left on device`);
    await start(tree);
    await fs.cp(at('acme'), at('beta'), { recursive: true });
    await eventually(
      async () => lines().filter((l) => l.msg === FAILED),
      (failed) => failed.length === 1,
      'the failure logged',
    );
    expect(lines().find((l) => l.msg === FAILED)!.err!.message).to.match(/No space left on device$/);
  });

  it('a storm of renames of folders and files: no warning, and the last state serves', async () => {
    // The repository's definitions: a tree large enough for its crawl to race the renames.
    await fs.cp(path.join(ROOT, 'definitions'), tmp.dir, { recursive: true });
    const apps = (await fs.readdir(tmp.dir)).filter((name) => !name.includes('.')).slice(0, 8);
    await start(parcel);
    // Spread out, as a shell loop's processes are: the renames go on while the watcher crawls the tree in its thread.
    const deadline = Date.now() + 5_000;
    for (let round = 0; Date.now() < deadline; round++) {
      const app = apps[round % apps.length]!;
      renameSync(at(app), at(`${app}-moved`));
      await new Promise((resolve) => setImmediate(resolve));
      renameSync(at(`${app}-moved`), at(app));
      await new Promise((resolve) => setImmediate(resolve));
      renameSync(at(`${app}/app.yaml`), at(`${app}/app.yml`));
      renameSync(at(`${app}/app.yml`), at(`${app}/app.yaml`));
    }
    // Still watched after it: the folder renamed once more and an edit in it are served.
    const [first] = apps;
    renameSync(at(first!), at(`${first}-final`));
    const app = (await fs.readFile(at(`${first}-final/app.yaml`), 'utf8')).match(/^id: (.*)$/m)![1]!;
    await rename(`${first}-final/app.yaml`, 'Renamed after the storm');
    await eventually(
      async () => registry.current().apps.get(app)?.name === 'Renamed after the storm' && (await servesTheFolder()),
      (holds) => holds,
      'the last state serves',
    );
    expect(lines().filter((l) => l.msg === FAILED)).to.deep.equal([]);
  });

  /**
   * Watching again first stops the watch it replaces, whose folders may be
   * gone already: the kernel dropped their inotify watches with them, and
   * @parcel/watcher's unsubscribe fails on the first ("Unable to remove
   * watcher: Invalid argument"). Logged as "unwatching definitions failed"
   * (4 warnings in 300 rounds of making, renaming and removing a folder
   * tree), it said nothing was wrong but a folder that was removed.
   */
  it('a watch stopped after one of its folders was removed: no warning', async () => {
    await copyValid(tmp.dir);
    // Parcel, whose first watch fails to stop as when one of its folders was removed.
    let stops = 0;
    const tree = {
      name: parcel.name,
      subscribe: async (root: string, onEvents: Parameters<TreeWatcher['subscribe']>[1]) => {
        const held = await parcel.subscribe(root, onEvents);
        return {
          unsubscribe: async () => {
            await held.unsubscribe();
            if (++stops === 1) throw new Error('Unable to remove watcher: Invalid argument');
          },
        };
      },
    };
    await start(tree);
    // A folder appearing: the watch is started again, and the one it replaces stopped.
    await fs.cp(at('acme'), at('beta'), { recursive: true });
    await fs.writeFile(at('beta/app.yaml'), 'id: beta\nslug: beta\nname: Beta\npublished: 1\n');
    await eventually(
      async () => registry.current().apps.has('beta') && (await servesTheFolder()),
      (holds) => holds,
      'the new app serves',
    );
    await eventually(
      async () => lines().filter((l) => /unwatched/.test(l.msg)).length,
      (count) => count > 0,
      'the stop said at debug level',
    );
    // Warnings only: a reload in the middle of the copy may see beta half-made (its app.yaml not yet written), an error it keeps the last snapshot for.
    expect(lines().filter((l) => l.level === 40)).to.deep.equal([]);
  });

  it('a storm of folder trees made, renamed and removed: no warning, and the last state serves', async () => {
    await fs.cp(path.join(ROOT, 'definitions'), tmp.dir, { recursive: true });
    await start(parcel);
    const deadline = Date.now() + 4_000;
    while (Date.now() < deadline) {
      mkdirSync(at('scratch/a/b'), { recursive: true });
      await new Promise((resolve) => setImmediate(resolve));
      renameSync(at('scratch'), at('scratch-moved'));
      await new Promise((resolve) => setImmediate(resolve));
      rmSync(at('scratch-moved'), { recursive: true });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await rename('github/app.yaml', 'GitHub after the storm');
    await eventually(
      async () => registry.current().apps.get('github')?.name === 'GitHub after the storm' && (await servesTheFolder()),
      (holds) => holds,
      'the last state serves',
    );
    expect(lines().filter((l) => l.level === 40)).to.deep.equal([]);
  });
});
