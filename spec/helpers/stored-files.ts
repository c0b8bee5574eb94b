import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Whether any file of the embedded database in `dataDir` (DATA_DIR/pglite:
 * its tables, indexes and write-ahead log, where every committed write is
 * before it is acknowledged) holds `text` as bytes: what someone with a copy
 * of the folder could read.
 */
export async function storedFilesInclude(dataDir: string, text: string): Promise<boolean> {
  const needle = Buffer.from(text, 'utf8');
  for (const file of await filesUnder(path.join(dataDir, 'pglite'))) {
    if ((await fs.readFile(file)).includes(needle)) return true;
  }
  return false;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}
