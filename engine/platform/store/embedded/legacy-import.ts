import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { copyStore, type CopyCounts } from '../copy-store.ts';
import type { Store } from '../port.ts';
import { openEmbeddedStore } from './nedb-store.ts';

export interface LegacyImport {
  /** Where the NeDB files were (DATA_DIR/store). */
  from: string;
  /** Where they are kept now, until the user deletes them. */
  keptAt: string;
  /** Records copied per collection; null when an earlier start had copied them and only the files were left to move. */
  counts: CopyCounts | null;
}

/** The folder of NeDB files that releases before the PGlite store wrote in DATA_DIR. */
export function legacyStoreDir(dataDir: string): string {
  return path.join(dataDir, 'store');
}

/**
 * The first start of this release on a DATA_DIR an earlier one wrote: every
 * record of its NeDB files (DATA_DIR/store/*.db) is copied into the embedded
 * database as it is (ids, key hashes, sealed credentials: the encryption key
 * in DATA_DIR still opens them, and API keys, end-user tokens and cursors
 * still work), in one transaction, before the gateway serves. Then the files
 * are moved aside to DATA_DIR/store.nedb-migrated-<date>, kept until the user
 * deletes them. A start killed after the copy committed and before the move
 * finds the records there (the target has a company) and only moves the
 * files. Answers null when there is nothing to import.
 */
export async function importLegacyDataDir(dataDir: string, target: Store, now = new Date()): Promise<LegacyImport | null> {
  const from = legacyStoreDir(dataDir);
  if (!existsSync(from) || !(await fs.readdir(from)).some((f) => f.endsWith('.db'))) return null;
  let counts: CopyCounts | null = null;
  if ((await target.companies.count({})) === 0) {
    const legacy = await openEmbeddedStore(dataDir, { compactionIntervalMs: 0 });
    try {
      // NeDB holds every record in memory already: one page per collection.
      counts = await copyStore(legacy, target, { pageSize: Number.MAX_SAFE_INTEGER });
    } finally {
      await legacy.close();
    }
  }
  const keptAt = `${from}.nedb-migrated-${now.toISOString().slice(0, 19).replace(/[:]/g, '-')}`;
  await fs.rename(from, keptAt);
  return { from, keptAt, counts };
}
