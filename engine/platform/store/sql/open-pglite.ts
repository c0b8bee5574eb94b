import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Kysely } from 'kysely';
import type { Store } from '../port.ts';
import { migrateToLatest } from './migrate.ts';
import { analyzeInBackground, staleStatistics } from './pglite-analyze.ts';
import { pgliteDialect } from './pglite-dialect.ts';
import { createDatabase, pgliteDistDir, type Created } from './pglite-create.ts';
import { PgliteThread, type PgliteThreadOptions, type PgliteWorkerData } from './pglite-thread.ts';
import { sqlStore } from './sql-store.ts';

export interface PgliteStoreOptions {
  queryTimeoutMs: number;
  /**
   * PGLITE_TEMPLATE_DIR: a DATA_DIR whose embedded database (its pglite/ folder) is copied into a DATA_DIR that has none, instead of the
   * build's empty one: a database already migrated, for test suites and benchmarks that start many gateways.
   */
  templateDir?: string | undefined;
  /** The empty database the build made (pglite-create.ts, SHIPPED_CLUSTER_DIR unless told another). */
  clusterDir?: string | undefined;
  /** Told how a DATA_DIR without a database got one: copied from the template or the build's cluster, or created (initdb). */
  onCreated?: (how: Exclude<Created, 'existing'>) => void;
  /** Told the migrations run at this start (none on most starts). */
  onMigrated?: (names: string[]) => void;
  /** Told when PGlite's thread stopped while serving (and why); the next request after a few seconds starts it again. */
  onStopped?: (reason: string) => void;
}

/**
 * PGlite's buffer cache lives in the process's WebAssembly memory, allocated
 * at open: PostgreSQL's default 128MB cost 130 MB of RSS more than this
 * (351 against 217 MB for an empty store, measured), and the operating
 * system's page cache holds the rest of the files anyway.
 */
export const PGLITE_SHARED_BUFFERS = '32MB';

/** Where the embedded store keeps its database in DATA_DIR. */
export function pgliteDir(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

/**
 * The embedded default: PostgreSQL compiled to WebAssembly (PGlite), its
 * data directory in DATA_DIR/pglite, the schema migrated at open. It runs in
 * this process, so only this process writes it (the DATA_DIR lock sees to
 * that) and caches may count its writes.
 *
 * PGlite runs in a worker thread of its own (pglite-thread.ts): the
 * gateway's thread only sends each query and is told its answer, so a slow
 * list never holds a request that needs no store (a /health), and a
 * thread that stops (out of memory, a crash) answers 503 STORE_UNAVAILABLE
 * and is started again, never a hang or a 500.
 *
 * Durability: every commit's WAL is written to its file before the write is
 * acknowledged, so a killed process (kill -9) loses no acknowledged write;
 * PGlite does not fsync (its file system layer has none), so a power loss
 * or kernel crash may lose the last writes the OS had not flushed yet
 * (docs/operations.md). PGlite cannot cancel a query: STORE_QUERY_TIMEOUT_MS
 * does not apply (every query the engine makes is bounded by its indexes and
 * the list limits instead).
 */
export async function openPgliteStore(dataDir: string, options: PgliteStoreOptions): Promise<Store> {
  return await pgliteStore(await startPgliteThread(dataDir, options), dataDir, options);
}

/** The data directory made ready (copied from the template or the build's cluster, or created) and PGlite's thread started on it. */
export async function startPgliteThread(dataDir: string, options: Pick<PgliteStoreOptions, 'templateDir' | 'clusterDir' | 'onCreated' | 'onStopped'> & Pick<PgliteThreadOptions, 'restartAfterMs'>): Promise<PgliteThread> {
  const dir = pgliteDir(dataDir);
  const created = await createDatabase(dir, { template: options.templateDir && pgliteDir(options.templateDir), cluster: options.clusterDir });
  if (created !== 'existing') options.onCreated?.(created);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  return await PgliteThread.start(
    { dir, ...(await compiled()), postgresqlconf: [`shared_buffers = ${PGLITE_SHARED_BUFFERS}`, 'max_wal_size = 256MB', 'min_wal_size = 32MB'] },
    { onStopped: options.onStopped, restartAfterMs: options.restartAfterMs },
  );
}

/** The store over a started thread: the schema migrated, the thread closed with the store (or now, if migrating fails). */
export async function pgliteStore(thread: PgliteThread, dataDir: string, options: Pick<PgliteStoreOptions, 'queryTimeoutMs' | 'onMigrated'>): Promise<Store> {
  const dir = pgliteDir(dataDir);
  const db = new Kysely<any>({ dialect: pgliteDialect(() => thread.session()) });
  try {
    const ran = await migrateToLatest(db);
    if (ran.length) options.onMigrated?.(ran);
  } catch (error) {
    await db.destroy().catch(() => {});
    await thread.close().catch(() => {});
    throw error;
  }
  let analyzing: { stop(): Promise<void> } | undefined;
  const store = sqlStore(db, {
    kind: 'embedded',
    queryTimeoutMs: options.queryTimeoutMs,
    soleWriter: true,
    // Reachable means PGlite can still write its files: the folder is there and writable (not gone with an
    // unmounted volume, not on a file system remounted read-only).
    reachable: () => fs.access(dir, fs.constants.W_OK),
    async close() {
      await analyzing?.stop();
      await db.destroy();
      await thread.close();
    },
  });
  // PGlite has no autovacuum: the store keeps its own statistics current (pglite-analyze.ts).
  analyzing = analyzeInBackground(staleStatistics(db, store));
  return store;
}

// Node's WebAssembly global; the project's TypeScript libraries do not declare it.
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<object> };
let modules: Promise<Omit<PgliteWorkerData, 'dir' | 'postgresqlconf'>> | undefined;

/**
 * PGlite's WebAssembly compiled once per process (a third of a second), whatever the number of stores opened:
 * a compiled module sent to a worker thread is shared with it, not compiled again. The file-system bundle
 * (6 MB) is copied to each thread.
 */
function compiled() {
  modules ??= (async () => {
    const dist = pgliteDistDir();
    const [pglite, initdb, bundle] = await Promise.all(['pglite.wasm', 'initdb.wasm', 'pglite.data'].map((f) => fs.readFile(path.join(dist, f))));
    return { pgliteWasmModule: await WebAssembly.compile(pglite!), initdbWasmModule: await WebAssembly.compile(initdb!), fsBundle: new Uint8Array(bundle!) };
  })();
  return modules;
}

/**
 * Makes `dir` a PGlite data directory of this release's schema, to copy into new DATA_DIRs
 * (PGLITE_TEMPLATE_DIR). Built beside it and renamed into place, so a reader never sees half of one.
 */
export async function createPgliteTemplate(dir: string): Promise<void> {
  if (existsSync(path.join(dir, 'pglite', 'PG_VERSION'))) return;
  const building = `${dir}.building-${process.pid}`;
  await fs.rm(building, { recursive: true, force: true });
  const store = await openPgliteStore(building, { queryTimeoutMs: 5_000 });
  await store.close();
  await fs.mkdir(path.dirname(dir), { recursive: true });
  await fs.rename(building, dir).catch(async (error: NodeJS.ErrnoException) => {
    await fs.rm(building, { recursive: true, force: true });
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  });
}
