import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import type { Store } from '../port.ts';
import { migrateToLatest } from './migrate.ts';
import { pgliteDialect } from './pglite-dialect.ts';
import { sqlStore } from './sql-store.ts';

export interface PgliteStoreOptions {
  queryTimeoutMs: number;
  /**
   * PGLITE_TEMPLATE_DIR: a DATA_DIR whose embedded database (its pglite/ folder) is copied into a DATA_DIR that has none, instead of creating
   * one (initdb takes seconds to tens of seconds): for test suites and benchmarks that start many gateways.
   */
  templateDir?: string | undefined;
  /** Told the migrations run at this start (none on most starts). */
  onMigrated?: (names: string[]) => void;
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
 * Durability: every commit's WAL is written to its file before the write is
 * acknowledged, so a killed process (kill -9) loses no acknowledged write;
 * PGlite does not fsync (its file system layer has none), so a power loss
 * or kernel crash may lose the last writes the OS had not flushed yet
 * (docs/operations.md). Queries run on this thread and PGlite cannot cancel
 * one: STORE_QUERY_TIMEOUT_MS does not apply (every query the engine makes is
 * bounded by its indexes and the list limits instead).
 */
export async function openPgliteStore(dataDir: string, options: PgliteStoreOptions): Promise<Store> {
  const dir = pgliteDir(dataDir);
  if (options.templateDir && !existsSync(path.join(dir, 'PG_VERSION'))) {
    await fs.rm(dir, { recursive: true, force: true });
    await fs.cp(pgliteDir(options.templateDir), dir, { recursive: true });
  }
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await createInWorker(dir);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const pg = await PGlite.create(dir, { ...(await compiled()), postgresqlconf: [`shared_buffers = ${PGLITE_SHARED_BUFFERS}`, 'max_wal_size = 256MB', 'min_wal_size = 32MB'] });
  const db = new Kysely<any>({ dialect: pgliteDialect(pg) });
  try {
    const ran = await migrateToLatest(db);
    if (ran.length) options.onMigrated?.(ran);
  } catch (error) {
    await db.destroy().catch(() => {});
    await pg.close().catch(() => {});
    throw error;
  }
  return sqlStore(db, {
    kind: 'embedded',
    queryTimeoutMs: options.queryTimeoutMs,
    soleWriter: true,
    // Reachable means PGlite can still write its files: the folder is there and writable (not gone with an
    // unmounted volume, not on a file system remounted read-only).
    reachable: () => fs.access(dir, fs.constants.W_OK),
    async close() {
      await db.destroy();
      await pg.close();
    },
  });
}

/**
 * A new database is created (initdb) in a worker thread, in a folder beside `dir` renamed into place once
 * whole: initdb grows PGlite's WebAssembly memory to hundreds of MB that a WebAssembly memory never gives
 * back, so done in the gateway's own thread the first start kept ~770 MB of RSS for the process's life
 * against ~300 MB for every later start; the thread takes that memory with it when it ends. Should the
 * worker fail (no threads, a folder it cannot write), the database is created in this thread as before,
 * where the same failure is reported as it always was. Only this process uses DATA_DIR (its lock), so a
 * folder left by a start that died while creating is simply replaced.
 */
async function createInWorker(dir: string): Promise<void> {
  const building = `${dir}.creating`;
  await fs.rm(building, { recursive: true, force: true });
  await fs.mkdir(building, { recursive: true, mode: 0o700 });
  const created = await new Promise<boolean>((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(INITDB_SCRIPT, { eval: true, workerData: { dir: building } });
    } catch {
      resolve(false);
      return;
    }
    let ok = false;
    worker.once('message', (message: { ok: boolean }) => (ok = message.ok));
    worker.once('error', () => resolve(false));
    worker.once('exit', () => resolve(ok));
  });
  if (created && existsSync(path.join(building, 'PG_VERSION'))) {
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(building, dir);
  } else {
    await fs.rm(building, { recursive: true, force: true });
  }
}

/** The worker's entry; a TypeScript worker registers tsx's loader in its own thread first (as parallel-analysis.ts does). */
const INITDB_MODULE = new URL(`./pglite-initdb-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
const INITDB_SCRIPT = INITDB_MODULE.endsWith('.ts')
  ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(INITDB_MODULE)}); });`
  : `import(${JSON.stringify(INITDB_MODULE)});`;

// Node's WebAssembly global; the project's TypeScript libraries do not declare it.
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<object> };
type PgliteOptions = NonNullable<Parameters<typeof PGlite.create>[1]>;
let modules: Promise<PgliteOptions> | undefined;

/** PGlite's WebAssembly compiled once per process (a third of a second), whatever the number of stores opened. */
function compiled() {
  modules ??= (async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const [pglite, initdb, bundle] = await Promise.all(['pglite.wasm', 'initdb.wasm', 'pglite.data'].map((f) => fs.readFile(path.join(dist, f))));
    return { pgliteWasmModule: await WebAssembly.compile(pglite!), initdbWasmModule: await WebAssembly.compile(initdb!), fsBundle: new Blob([bundle!]) } as PgliteOptions;
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
