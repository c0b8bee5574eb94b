import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export const LOCK_FILE = 'gateway.pid';

/**
 * The embedded store is one process's: two processes appending to the same
 * files would lose writes. The gateway holds DATA_DIR/gateway.pid while it
 * runs: its pid, and (on Linux) when that process started. A lock left by a
 * process that is gone is taken over, and so is one whose pid is now another
 * process's: this one's own (a container's gateway is pid 1 at every start,
 * so after a kill -9 the file named the new process itself and every restart
 * was refused), or a live process that started at another time than the one
 * that wrote the file.
 */
export async function acquireDataDirLock(dataDir: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, LOCK_FILE);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const started = startTimeOf(process.pid);
      await fs.writeFile(file, started === null ? `${process.pid}\n` : `${process.pid}\n${started}\n`, { flag: 'wx', mode: 0o600 });
      return async () => {
        await fs.rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = await lockHolder(dataDir);
      if (holder !== null) throw new DataDirLockedError(dataDir, holder);
      await fs.rm(file, { force: true });
    }
  }
  throw new DataDirLockedError(dataDir, null);
}

/** The pid of a live process holding DATA_DIR, or null. */
export async function lockHolder(dataDir: string): Promise<number | null> {
  const content = await fs.readFile(path.join(dataDir, LOCK_FILE), 'utf8').catch(() => null);
  const [pidText = '', startedText] = (content ?? '').trim().split('\n');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  // The pid lives: it holds the lock unless it is known to be another process than the one that wrote the file.
  const started = startTimeOf(pid);
  return startedText !== undefined && started !== null && started !== startedText.trim() ? null : pid;
}

/** When process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), as text; null where there is no /proc. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: the fields are counted after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number | null) {
    super(`DATA_DIR ${dataDir} is in use by another gateway process${pid ? ` (pid ${pid})` : ''}`);
    this.name = 'DataDirLockedError';
  }
}
