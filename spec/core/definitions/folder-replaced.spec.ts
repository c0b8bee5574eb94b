import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../../engine/config/config.ts';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { resolveAction, resolveAppVersion } from '../../../engine/core/definitions/resolve.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import { RELOAD_DEBOUNCE_MS, watchDefinitions } from '../../../engine/core/definitions/watch.ts';
import { startGateway } from '../../../engine/gateway.ts';
import { pgliteTemplate } from '../../helpers/gateway.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { expectDocumentedIfDescribed } from '../../helpers/openapi.ts';
import { eventually, WITHIN_MS } from '../../support/eventually.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const API_KEY = 'folder-replaced-spec-key-0123456789';
/** Generous: a reload takes milliseconds, but CI machines stall. Polling ends as soon as the condition holds. */
const ACTION = 'acme/versions/1/actions/list-lists.yaml';

interface Answer {
  status: number;
  body: any;
}

/** The real gateway on port 0 over `definitionsDir`, its log kept in memory. */
async function startOn(definitionsDir: string) {
  const data = await tempDir('gw-data-');
  const config = loadConfig({ ...pgliteTemplate(), DATA_DIR: data.dir, DEFINITIONS_DIR: definitionsDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_API_KEY: API_KEY, LOG_LEVEL: 'info' });
  const logs = captureLogs();
  const gateway = await startGateway(config, logs.logger);
  return {
    gateway,
    logs: () => logs.lines().map((line) => JSON.parse(line) as { level: number; msg: string; [key: string]: unknown }),
    get: async (route: string, withKey = true): Promise<Answer> => {
      const response = await fetch(`http://127.0.0.1:${gateway.port}${route}`, { headers: withKey ? { authorization: `Bearer ${API_KEY}` } : {} });
      const answer = { status: response.status, body: await response.json() };
      expectDocumentedIfDescribed('GET', route, answer);
      return answer;
    },
    /** The name the live snapshot gives acme's list-lists action. */
    actionName: () => resolveAction(resolveAppVersion(gateway.services.definitions.current(), { id: 'acme' }, 'published'), { id: 'list-lists' }).name,
    stop: async () => {
      await gateway.stop();
      await data.remove();
    },
  };
}


/** The valid definitions with acme's list-lists action named `name`. */
async function definitionsNamed(into: string, name: string): Promise<void> {
  await copyValid(into);
  const file = path.join(into, ACTION);
  const text = await fs.readFile(file, 'utf8');
  expect(text).to.contain('name: List lists');
  await fs.writeFile(file, text.replace('name: List lists', `name: ${name}`));
}

/**
 * What the kubelet writes for a ConfigMap or Secret volume: the files in a
 * hidden timestamped folder, `..data` pointing at it, and a symlink through
 * `..data` for each top-level entry. An update writes a new timestamped
 * folder, renames a new `..data_tmp` link over `..data` (atomic) and then
 * removes the old folder.
 */
async function writeVolume(dir: string, stamp: string, name: string): Promise<void> {
  const version = `..2026_11_24_01_00_00.${stamp}`;
  await definitionsNamed(path.join(dir, version), name);
  const before = await fs.readlink(path.join(dir, '..data')).catch(() => null);
  await fs.symlink(version, path.join(dir, '..data_tmp'));
  await fs.rename(path.join(dir, '..data_tmp'), path.join(dir, '..data'));
  for (const entry of await fs.readdir(path.join(dir, version))) {
    await fs.symlink(path.join('..data', entry), path.join(dir, entry)).catch((error: NodeJS.ErrnoException) => (error.code === 'EEXIST' ? undefined : Promise.reject(error)));
  }
  if (before) await fs.rm(path.join(dir, before), { recursive: true });
}

describe('hot reload when the definitions folder is replaced', function () {
  this.timeout(WITHIN_MS * 3);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let gw: Awaited<ReturnType<typeof startOn>> | undefined;
  /** DEFINITIONS_DIR: inside its own temporary folder, so the folder can be removed and re-created. */
  let defs: string;

  beforeEach(async () => {
    tmp = await tempDir('gw-replaced-');
    defs = path.join(tmp.dir, 'definitions');
    gw = undefined;
  });
  afterEach(async () => {
    await gw?.stop();
    await tmp.remove();
  });

  /** Waits until the status route serves what a fresh full load of `folder` gives, without problems. */
  const servesFolder = async (folder: string, what: string) => {
    const expected = await loadDefinitions(folder);
    expect(expected.ok, JSON.stringify(expected.problems)).to.equal(true);
    return eventually(
      () => gw!.get('/v2/definitions/status'),
      (a) => a.body.data.hash === expected.hash && a.body.data.errorCount === 0 && a.body.data.lastAttempt?.ok === true,
      what,
    );
  };

  it('serves the new folder after DEFINITIONS_DIR is removed and created again with an edited app', async () => {
    await definitionsNamed(defs, 'List lists');
    gw = await startOn(defs);
    const before = (await gw.get('/v2/definitions/status')).body.data.hash;

    await fs.rm(defs, { recursive: true });
    await definitionsNamed(defs, 'Lists of the new folder');
    const after = await servesFolder(defs, 'the re-created folder serves');
    expect(after.body.data.hash).to.not.equal(before);
    expect(gw.actionName()).to.equal('Lists of the new folder');

    // Watched anew: an edit in the new folder is seen too.
    const file = path.join(defs, ACTION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: Lists of the new folder', 'name: Edited in the new folder'));
    await eventually(async () => gw!.actionName(), (name) => name === 'Edited in the new folder', 'an edit in the new folder serves');
    expect(gw.logs().some((l) => l.level === 30 && l.msg === 'watching the definitions folder anew' && l.dir === defs)).to.equal(true);
  });

  it('waits for a copy into the replaced folder to be quiet: a copy that pauses between apps is never served half-way (rm -rf && cp -r)', async () => {
    // Two apps: acme, and a second made from it.
    const twoApps = async (into: string) => {
      await copyValid(into);
      const second = path.join(into, 'acme-two');
      await fs.cp(path.join(into, 'acme'), second, { recursive: true });
      const app = path.join(second, 'app.yaml');
      await fs.writeFile(app, (await fs.readFile(app, 'utf8')).replace(/^id: acme$/m, 'id: acme-two').replace(/^slug: acme-crm$/m, 'slug: acme-two'));
    };
    const source = path.join(tmp.dir, 'new-definitions');
    await twoApps(source);
    await twoApps(defs);
    expect((await loadDefinitions(defs)).snapshot?.apps.size).to.equal(2);
    gw = await startOn(defs);
    await fs.rm(defs, { recursive: true });
    await fs.mkdir(defs);
    // One app copied, a pause (a slow disk, a busy machine), then the other.
    for (const app of ['acme', 'acme-two']) {
      await fs.cp(path.join(source, app), path.join(defs, app), { recursive: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await servesFolder(defs, 'the copied folder serves');
    const served = gw.logs().filter((l) => l.msg === 'definitions loaded').map((l) => l.apps);
    expect(served, 'apps of each snapshot served').to.deep.equal([2, 2]);
  });

  it('loads a Kubernetes ConfigMap volume and reloads when its ..data link is swapped', async () => {
    await fs.mkdir(defs);
    await writeVolume(defs, '100', 'Lists of the first volume');
    gw = await startOn(defs);
    const first = await gw.get('/v2/definitions/status');
    expect(first.body.data).to.include({ appCount: 1, errorCount: 0 });
    expect(gw.actionName()).to.equal('Lists of the first volume');

    await writeVolume(defs, '200', 'Lists of the second volume');
    const second = await servesFolder(path.join(defs, '..data'), 'the swapped volume serves');
    expect(second.body.data.hash).to.not.equal(first.body.data.hash);
    expect(gw.actionName()).to.equal('Lists of the second volume');
    const anew = gw.logs().filter((l) => l.msg === 'watching the definitions folder anew');
    expect(anew.at(-1)).to.include({ level: 30, dir: defs, root: await fs.realpath(path.join(defs, '..data')) });

    await writeVolume(defs, '300', 'Lists of the third volume');
    await eventually(async () => gw!.actionName(), (name) => name === 'Lists of the third volume', 'the third volume serves');
  });

  it('reloads when DEFINITIONS_DIR is a symlink re-pointed to another folder, and watches that folder', async () => {
    const a = path.join(tmp.dir, 'a');
    const b = path.join(tmp.dir, 'b');
    await definitionsNamed(a, 'Lists of A');
    await definitionsNamed(b, 'Lists of B');
    await fs.symlink(a, defs);
    gw = await startOn(defs);
    expect(gw.actionName()).to.equal('Lists of A');

    // As `ln -sfn` is made atomic: a new link renamed over the old one.
    await fs.symlink(b, `${defs}.tmp`);
    await fs.rename(`${defs}.tmp`, defs);
    await servesFolder(b, 'folder B serves');
    expect(gw.actionName()).to.equal('Lists of B');

    const file = path.join(b, ACTION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: Lists of B', 'name: Edited in B'));
    await eventually(async () => gw!.actionName(), (name) => name === 'Edited in B', 'an edit in B serves');
    // A is not watched any more.
    await fs.writeFile(path.join(a, ACTION), (await fs.readFile(path.join(a, ACTION), 'utf8')).replace('name: Lists of A', 'name: Edited in A'));
    await servesFolder(b, 'still folder B');
  });

  it('keeps serving the last good snapshot while the folder is missing, says so, and recovers when it comes back', async () => {
    await definitionsNamed(defs, 'List lists');
    gw = await startOn(defs);
    const good = (await gw.get('/v2/definitions/status')).body.data.hash;

    await fs.rm(defs, { recursive: true });
    const missing = await eventually(
      () => gw!.get('/v2/definitions/status'),
      (a) => a.body.data.errors.some((e: { code: string }) => e.code === 'DEFINITIONS_DIR_MISSING'),
      'status says the folder is missing',
    );
    expect(missing.body.data.hash).to.equal(good);
    expect(missing.body.data.lastAttempt).to.include({ ok: false });
    expect(gw.actionName()).to.equal('List lists');
    expect((await gw.get('/ready', false)).status).to.equal(200);
    const warned = gw.logs().find((l) => l.msg === 'definitions folder is missing: the last good snapshot, if any, keeps serving until it is back');
    expect(warned).to.include({ level: 40, dir: defs });

    // Gone for a while.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await definitionsNamed(defs, 'Lists after the gap');
    await servesFolder(defs, 'the folder serves again');
    expect(gw.actionName()).to.equal('Lists after the gap');
    const file = path.join(defs, ACTION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: Lists after the gap', 'name: Edited after the gap'));
    await eventually(async () => gw!.actionName(), (name) => name === 'Edited after the gap', 'an edit after the gap serves');
  });
});

describe('loading a Kubernetes ConfigMap volume', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-volume-');
  });
  afterEach(async () => tmp.remove());

  it('reads the folder ..data points at, with the same file names as a plain folder', async () => {
    await writeVolume(tmp.dir, '100', 'List lists');
    const plain = await tempDir('defs-plain-');
    try {
      await copyValid(plain.dir);
      const [volume, folder] = [await loadDefinitions(tmp.dir), await loadDefinitions(plain.dir)];
      expect(volume.problems).to.deep.equal([]);
      expect(volume.hash).to.equal(folder.hash);
      expect(volume.stats.files).to.equal(folder.stats.files);
    } finally {
      await plain.remove();
    }
  });

  it('loads the ConfigMap and volume of docs/definitions.md laid out as the kubelet lays them', async () => {
    const guide = await fs.readFile(path.join(ROOT, 'docs/definitions.md'), 'utf8');
    const section = guide.slice(guide.indexOf('### When the folder itself is replaced'));
    const [configMap, deployment] = parseAllDocuments(/```yaml\n([\s\S]*?)```/.exec(section)![1]!).map((document) => document.toJS());
    const volume = deployment.spec.template.spec.volumes[0].configMap;
    expect(volume.name).to.equal(configMap.metadata.name);
    const version = path.join(tmp.dir, '..2026_11_24_01_00_00.100');
    for (const item of volume.items as { key: string; path: string }[]) {
      await fs.mkdir(path.dirname(path.join(version, item.path)), { recursive: true });
      await fs.writeFile(path.join(version, item.path), configMap.data[item.key]);
    }
    await fs.symlink(path.basename(version), path.join(tmp.dir, '..data'));
    await fs.symlink(path.join('..data', 'github'), path.join(tmp.dir, 'github'));
    const result = await loadDefinitions(tmp.dir);
    expect(result.problems).to.deep.equal([]);
    expect([...result.snapshot!.apps.keys()]).to.deep.equal(['github']);
    expect(result.stats.files).to.equal(4);
  });

  it('does not follow a ..data link that leads out of the folder: the top-level symlinked folders stay unread', async () => {
    const outside = await tempDir('defs-outside-');
    try {
      await copyValid(outside.dir);
      await fs.symlink(outside.dir, path.join(tmp.dir, '..data'));
      await fs.symlink(path.join('..data', 'acme'), path.join(tmp.dir, 'acme'));
      const result = await loadDefinitions(tmp.dir);
      expect(result.stats.files).to.equal(0);
    } finally {
      await outside.remove();
    }
  });
});

describe('the periodic look for the definitions folder', function () {
  this.timeout(WITHIN_MS * 2);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-periodic-');
  });
  afterEach(async () => tmp.remove());

  it('finds the folder replaced where no watch sees it (the folder holding it moved away and made again)', async () => {
    const parent = path.join(tmp.dir, 'mount');
    const defs = path.join(parent, 'definitions');
    await definitionsNamed(defs, 'List lists');
    const logs = captureLogs();
    const registry = new DefinitionsRegistry(defs, createLogger('silent'));
    await registry.reload('start');
    // A check every 200 ms: the test need not wait the default FOLDER_CHECK_MS.
    const stop = await watchDefinitions(registry, logs.logger, RELOAD_DEBOUNCE_MS, 200);
    try {
      await fs.rename(parent, path.join(tmp.dir, 'old-mount'));
      await definitionsNamed(defs, 'Lists found by the periodic check');
      const name = () => resolveAction(resolveAppVersion(registry.current(), { id: 'acme' }, 'published'), { id: 'list-lists' }).name;
      await eventually(async () => name(), (n) => n === 'Lists found by the periodic check', 'the new folder serves');
      const anew = logs.lines().map((line) => JSON.parse(line)).filter((l) => l.msg === 'watching the definitions folder anew');
      expect(anew.map((l) => l.reason)).to.include('periodic check');
    } finally {
      await stop();
    }
  });
});
