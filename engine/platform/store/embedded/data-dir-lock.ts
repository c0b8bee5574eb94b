import fs from 'node:fs/promises';
import path from 'node:path';

export const LOCK_FILE = 'gateway.pid';

/**
 * The embedded store is one process's: two processes appending to the same
 * files would lose writes. The gateway holds DATA_DIR/gateway.pid while it
 * runs; a lock left by a process that is gone is taken over.
 */
export async function acquireDataDirLock(dataDir: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, LOCK_FILE);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, String(process.pid), { flag: 'wx', mode: 0o600 });
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
  const pid = content === null ? NaN : Number(content.trim());
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number | null) {
    super(`DATA_DIR ${dataDir} is in use by another gateway process${pid ? ` (pid ${pid})` : ''}`);
    this.name = 'DataDirLockedError';
  }
}
