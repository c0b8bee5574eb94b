import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A fresh directory under the OS temp dir; removed by the returned cleanup. */
export async function tempDir(prefix = 'igw-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
}
