import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../../package-root.ts';
import { ConfigError } from '../../settings/env.ts';
import { workerScript } from '../../worker-script.ts';

/**
 * Where `npm run build` puts an empty database made by this PGlite (its `pglite/` folder and a `stamp.json`
 * naming PGlite's version), copied into a DATA_DIR that has none: scripts/build-pglite-cluster.ts.
 */
export const SHIPPED_CLUSTER_DIR = path.join(PACKAGE_ROOT, 'dist', 'pglite-cluster');

export interface CreateOptions {
  /** PGLITE_TEMPLATE_DIR's `pglite/` folder: copied whatever its stamp (the tests' migrated database). */
  template?: string | undefined;
  /** A folder shaped like SHIPPED_CLUSTER_DIR: copied when its stamp names the installed PGlite. */
  cluster?: string | undefined;
}

/** How the database came to be: told to whoever opens the store (and to the tests). */
export type Created = 'existing' | 'template' | 'cluster' | 'initdb';

/**
 * Makes `dir` a PGlite data directory when it is not one yet (no PG_VERSION), the cheapest way there is:
 * copying the template or the cluster the build made, and creating one (initdb) only when neither is there
 * or the cluster was made by another PGlite.
 *
 * Why not initdb on every first start: PGlite's initdb runs a second PostgreSQL instance and keeps a copy of
 * its whole WebAssembly heap to reset it between steps, so a whole gateway's first start peaked at 949 MB of
 * RSS against 371 MB for a restart (docs/operations.md, the bench's start part) for about 10 s: a container
 * limited to 512 MB was killed on every first start, and restarted into the same first start. Copying the 39 MB
 * of an empty cluster takes about half a second and costs no more memory than a restart.
 *
 * Every way goes through a folder beside `dir` renamed into place once whole, so a start that dies halfway
 * leaves a folder the next start replaces, never half a database. Only this process uses DATA_DIR (its lock).
 */
export async function createDatabase(dir: string, options: CreateOptions = {}): Promise<Created> {
  if (existsSync(path.join(dir, 'PG_VERSION'))) return 'existing';
  if (options.template) {
    // Asked for by name: a template that cannot be copied stops the start, saying why.
    const failed = await copyInto(options.template, dir);
    if (failed) throw new ConfigError('PGLITE_TEMPLATE_DIR', `could not be copied: ${failed}`);
    return 'template';
  }
  const cluster = options.cluster ?? SHIPPED_CLUSTER_DIR;
  // The build's database is a shortcut: one that cannot be copied leaves initdb to do the work.
  if ((await clusterMatches(cluster)) && !(await copyInto(path.join(cluster, 'pglite'), dir))) return 'cluster';
  await initdbInWorker(dir);
  return 'initdb';
}

/** The installed PGlite's dist/ folder: its WebAssembly and file-system bundle, and its package.json one level up. */
export function pgliteDistDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
}

/** The installed PGlite's version: a cluster made by another one may not be its data format. */
export function pgliteVersion(): string {
  // Its exports map names no package.json: found next to its dist/.
  return (createRequire(import.meta.url)(path.join(pgliteDistDir(), '..', 'package.json')) as { version: string }).version;
}

async function clusterMatches(cluster: string): Promise<boolean> {
  try {
    const stamp = JSON.parse(await fs.readFile(path.join(cluster, 'stamp.json'), 'utf8')) as { pglite?: unknown };
    return stamp.pglite === pgliteVersion() && existsSync(path.join(cluster, 'pglite', 'PG_VERSION'));
  } catch {
    return false;
  }
}

/** `source` copied to `dir` through `${dir}.creating`: undefined once done, else why not (and nothing left). */
async function copyInto(source: string, dir: string): Promise<string | undefined> {
  const building = `${dir}.creating`;
  try {
    if (!existsSync(path.join(source, 'PG_VERSION'))) return `${source} holds no PGlite database (no PG_VERSION)`;
    await fs.rm(building, { recursive: true, force: true });
    await fs.cp(source, building, { recursive: true });
    // The shipped cluster is readable by all (the image's user copies what root built); DATA_DIR's is not.
    await fs.chmod(building, 0o700);
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(building, dir);
    return undefined;
  } catch (error) {
    await fs.rm(building, { recursive: true, force: true }).catch(() => {});
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A new database is created (initdb) in a worker thread: initdb grows PGlite's WebAssembly memory to hundreds
 * of MB that a WebAssembly memory never gives back, and this short-lived thread takes that memory with it when
 * it ends. Should it fail (a folder it cannot write), the store's own thread (PgliteThread) creates the
 * database as it opens it, where the same failure is reported as it always was.
 */
async function initdbInWorker(dir: string): Promise<void> {
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

const INITDB_SCRIPT = workerScript(import.meta.url, 'pglite-initdb-worker');

/**
 * Makes `target` (SHIPPED_CLUSTER_DIR by default) an empty database of the installed PGlite with its stamp:
 * 'kept' when it already is one. Built beside it and renamed into place; readable by every user (directories
 * 0755, files 0644), because the image builds it as root and runs as `node`, which only copies it.
 */
export async function buildCluster(target: string = SHIPPED_CLUSTER_DIR): Promise<'built' | 'kept'> {
  if (await clusterMatches(target)) return 'kept';
  const building = `${target}.building-${process.pid}`;
  await fs.rm(building, { recursive: true, force: true });
  await fs.mkdir(building, { recursive: true });
  try {
    await initdbInWorker(path.join(building, 'pglite'));
    if (!existsSync(path.join(building, 'pglite', 'PG_VERSION'))) throw new Error(`PGlite could not create a database in ${building}`);
    await fs.writeFile(path.join(building, 'stamp.json'), `${JSON.stringify({ pglite: pgliteVersion() })}\n`);
    await readableByAll(building);
    // Another build that finished meanwhile (two prestarts at once) is kept: replacing it could pull it from under a copy.
    if (await clusterMatches(target)) return 'kept';
    await fs.rm(target, { recursive: true, force: true });
    await fs.rename(building, target);
  } finally {
    await fs.rm(building, { recursive: true, force: true });
  }
  return 'built';
}

async function readableByAll(dir: string): Promise<void> {
  await fs.chmod(dir, 0o755);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) await readableByAll(file);
    else await fs.chmod(file, 0o644);
  }
}
