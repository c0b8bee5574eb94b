import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { acquireDataDirLock, LOCK_FILE } from '../../../../engine/platform/store/embedded/data-dir-lock.ts';

/** Field 22 of /proc/<pid>/stat: when the process started. */
const startTime = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
};

describe("DATA_DIR's lock (gateway.pid)", () => {
  let dir: string;
  let other: ChildProcess | null = null;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-lock-'));
  });
  afterEach(async () => {
    other?.kill('SIGKILL');
    other = null;
    await fs.rm(dir, { recursive: true, force: true });
  });
  const leave = (content: string) => fs.writeFile(path.join(dir, LOCK_FILE), content);
  const sleeper = async () => {
    other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    await new Promise((resolve) => other!.once('spawn', resolve));
    return other.pid!;
  };

  it("takes over a lock naming this process's own pid: a container's gateway, pid 1 again after a kill -9", async () => {
    await leave(`${process.pid}\n`);
    const release = await acquireDataDirLock(dir);
    expect((await fs.readFile(path.join(dir, LOCK_FILE), 'utf8')).split('\n')[0]).to.equal(String(process.pid));
    await release();
  });

  it('takes over a lock whose pid is now another process (it started at another time than the one that wrote it)', async () => {
    const pid = await sleeper();
    await leave(`${pid}\n1\n`);
    const release = await acquireDataDirLock(dir);
    await release();
  });

  it('refuses a lock held by a live gateway, naming its pid, and one written without a start time by a live process', async () => {
    const pid = await sleeper();
    await leave(`${pid}\n${startTime(pid)}\n`);
    const refused = await acquireDataDirLock(dir).then(() => null, (error: Error) => error);
    expect(refused?.message).to.equal(`DATA_DIR ${dir} is in use by another gateway process (pid ${pid})`);
    await leave(`${pid}`);
    expect((await acquireDataDirLock(dir).then(() => null, (error: Error) => error))?.message).to.include(`(pid ${pid})`);
  });

  it('writes its pid and start time, and takes over the lock of a process that is gone', async () => {
    const pid = await sleeper();
    other!.kill('SIGKILL');
    await new Promise((resolve) => other!.once('exit', resolve));
    await leave(`${pid}\n`);
    const release = await acquireDataDirLock(dir);
    expect(await fs.readFile(path.join(dir, LOCK_FILE), 'utf8')).to.equal(`${process.pid}\n${startTime(process.pid)}\n`);
    await release();
    await fs.access(path.join(dir, LOCK_FILE)).then(() => expect.fail('the lock is still there'), () => {});
  });
});
