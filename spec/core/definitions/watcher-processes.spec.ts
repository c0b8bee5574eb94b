import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { parcelBackend } from '../../../engine/core/definitions/tree-watcher.ts';
import { killIfRunning, spawnGateway, type GatewayProcess } from '../../helpers/process.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';
import { eventually } from '../../support/eventually.ts';

const API_KEY = 'watcher-processes-spec-key-0123456789';
const SWAPS = 20;

/** The processes whose parent is `pid` (zombies included), read from /proc: `<pid> (<name>) <state>`. */
function childrenOf(pid: number): string[] {
  const children: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const close = stat.lastIndexOf(')');
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if (Number(ppid) === pid) children.push(`${entry} ${stat.slice(stat.indexOf('('), close + 1)} ${state}`);
  }
  return children;
}

/**
 * A Kubernetes ConfigMap update, as the kubelet writes it: a new timestamped folder, a new `..data_tmp`
 * link renamed over `..data` (one atomic step), the top-level links through `..data`, the old folder removed.
 */
async function swapVolume(dir: string, stamp: number): Promise<string> {
  const version = `..2026_11_29_00_00_00.${String(stamp).padStart(3, '0')}`;
  await copyValid(path.join(dir, version));
  const actionFile = path.join(dir, version, 'acme/versions/1/actions/list-lists.yaml');
  await fs.writeFile(actionFile, (await fs.readFile(actionFile, 'utf8')).replace('name: List lists', `name: List lists ${stamp}`));
  const before = await fs.readlink(path.join(dir, '..data')).catch(() => null);
  await fs.symlink(version, path.join(dir, '..data_tmp'));
  await fs.rename(path.join(dir, '..data_tmp'), path.join(dir, '..data'));
  for (const entry of await fs.readdir(path.join(dir, version))) {
    await fs.symlink(path.join('..data', entry), path.join(dir, entry)).catch((error: NodeJS.ErrnoException) => (error.code === 'EEXIST' ? undefined : Promise.reject(error)));
  }
  if (before) await fs.rm(path.join(dir, before), { recursive: true });
  return path.join(dir, version);
}

describe('the definitions watcher starts no process and leaks none, through folder swaps', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let gateway: GatewayProcess | null = null;
  before(async () => {
    tmp = await tempDir('gw-watcher-processes-');
  });
  after(async () => {
    await killIfRunning(gateway);
    await tmp?.remove();
  });

  it('chooses the watch backend of the platform (never the watchman probe, which runs a shell)', () => {
    expect(parcelBackend('linux')).to.equal('inotify');
    expect(parcelBackend('darwin')).to.equal('fs-events');
    expect(parcelBackend('win32')).to.equal('windows');
    expect(parcelBackend('freebsd')).to.equal('kqueue');
    expect(parcelBackend('aix'), 'none known: Node\'s recursive fs.watch instead').to.equal(null);
  });

  it(`${SWAPS} ConfigMap swaps of the definitions folder: each one served, no child process under the gateway, no unwatching error in the log`, async function () {
    if (process.platform !== 'linux') this.skip();
    const defs = path.join(tmp.dir, 'definitions');
    await fs.mkdir(defs);
    await swapVolume(defs, 0);
    const data = path.join(tmp.dir, 'data');
    // debug: a failed unwatch of a folder already removed is logged there (harmless to the kernel, not to parcel's tables).
    gateway = await spawnGateway({ PORT: '0', DATA_DIR: data, DEFINITIONS_DIR: defs, BOOTSTRAP_API_KEY: API_KEY, LOG_LEVEL: 'debug' }, 60_000);
    const pid = gateway.child.pid!;
    const status = async () => {
      const response = await fetch(`${gateway!.url}/v2/definitions/status`, { headers: { authorization: `Bearer ${API_KEY}` } });
      return ((await response.json()) as { data: { hash: string; errorCount: number } }).data;
    };
    expect(childrenOf(pid), 'after the start').to.deep.equal([]);

    for (let swap = 1; swap <= SWAPS; swap++) {
      const folder = await swapVolume(defs, swap);
      const expected = await loadDefinitions(folder);
      expect(expected.ok).to.equal(true);
      await eventually(status, (s) => s.hash === expected.hash && s.errorCount === 0, `swap ${swap} served`, 30_000);
    }
    expect(childrenOf(pid), `after ${SWAPS} swaps`).to.deep.equal([]);
    const log = gateway.stdout();
    expect(log).not.to.include('unwatching definitions failed');
    expect(log).not.to.include('watching definitions failed');
    expect(log, 'each old folder is unwatched once parcel saw it removed: nothing left to remove').not.to.include('was removed while it was unwatched');

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).to.equal(0);
    expect(gateway.stdout()).not.to.include('unwatching definitions failed');
    expect(gateway.stdout()).not.to.include('was removed while it was unwatched');
    // Counted once the process has ended: the log is written asynchronously.
    expect(gateway.stdout().match(/"msg":"watching the definitions folder anew"/g)?.length ?? 0).to.be.at.least(SWAPS);
    gateway = null;
  });
});
